#include "tools/commands.h"

#include <CLI/CLI.hpp>

namespace samsa::tools {

CLI::App* add_verb(CLI::App& parent, const std::string& name, const std::string& description) {
    auto* cmd = parent.add_subcommand(name, description);
    cmd->option_defaults()->always_capture_default();
    return cmd;
}

std::vector<tool_command> add_tool_commands(CLI::App& app) {
    std::vector<tool_command> out;
    out.push_back(add_topics_command(app));
    out.push_back(add_produce_command(app));
    out.push_back(add_consume_command(app));
    out.push_back(add_groups_command(app));
    out.push_back(add_configs_command(app));
    out.push_back(add_cluster_command(app));
    out.push_back(add_delete_records_command(app));
    out.push_back(add_reassign_partitions_command(app));
    out.push_back(add_leader_election_command(app));
    out.push_back(add_dump_log_command(app));
    out.push_back(add_transactions_command(app));
    out.push_back(add_acls_command(app));
    out.push_back(add_metadata_quorum_command(app));
    out.push_back(add_log_dirs_command(app));
    out.push_back(add_get_offsets_command(app));
    out.push_back(add_features_command(app));
    out.push_back(add_storage_command(app));

    auto* perf =
        app.add_subcommand("perf", "Throughput and latency tests (produce, consume, e2e, replay)");
    perf->require_subcommand(1);
    out.push_back(add_perf_produce_command(*perf));
    out.push_back(add_perf_consume_command(*perf));
    out.push_back(add_perf_e2e_command(*perf));
    out.push_back(add_perf_replay_command(*perf));
    return out;
}

std::optional<int> run_selected(const std::vector<tool_command>& commands) {
    for (const auto& c : commands) {
        if (c.app != nullptr && c.app->parsed()) {
            return c.run();
        }
    }
    return std::nullopt;
}

}  // namespace samsa::tools
