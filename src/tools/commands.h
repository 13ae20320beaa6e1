#pragma once
// The `samsa` command-line verbs other than `server` (docs/architecture.md, "Rooms"): topics,
// produce, consume, groups, configs, cluster, delete-records, reassign-partitions,
// leader-election, dump-log, transactions, acls, metadata-quorum, log-dirs, get-offsets,
// storage and perf. Each verb lives in its own file and registers
// itself on the top-level CLI11 app; main.cc runs the one the command line selected.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace samsa::tools {

struct tool_command {
    CLI::App* app = nullptr;  // selected when `*app` is true after parsing
    std::function<int()> run;
};

// A verb's subcommand, set to show every option's default in --help.
CLI::App* add_verb(CLI::App& parent, const std::string& name, const std::string& description);

// Registers every verb on `app` (the options live as long as the returned list).
std::vector<tool_command> add_tool_commands(CLI::App& app);

// The exit code of the verb the parsed command line selected, or nullopt.
std::optional<int> run_selected(const std::vector<tool_command>& commands);

// One per verb file.
tool_command add_topics_command(CLI::App& app);
tool_command add_produce_command(CLI::App& app);
tool_command add_consume_command(CLI::App& app);
tool_command add_groups_command(CLI::App& app);
tool_command add_configs_command(CLI::App& app);
tool_command add_cluster_command(CLI::App& app);
tool_command add_delete_records_command(CLI::App& app);
tool_command add_reassign_partitions_command(CLI::App& app);
tool_command add_leader_election_command(CLI::App& app);
tool_command add_dump_log_command(CLI::App& app);
tool_command add_transactions_command(CLI::App& app);
tool_command add_acls_command(CLI::App& app);
tool_command add_metadata_quorum_command(CLI::App& app);
tool_command add_log_dirs_command(CLI::App& app);
tool_command add_get_offsets_command(CLI::App& app);
tool_command add_features_command(CLI::App& app);
tool_command add_storage_command(CLI::App& app);
tool_command add_perf_produce_command(CLI::App& perf);
tool_command add_perf_consume_command(CLI::App& perf);
tool_command add_perf_e2e_command(CLI::App& perf);
tool_command add_perf_replay_command(CLI::App& perf);

}  // namespace samsa::tools
