// The one Samsa binary: `samsa server` runs a broker; the other verbs are the
// command-line tools (src/tools/). Called by one of Kafka's script names (a
// link `kafka-topics.sh -> samsa`, as `cmake --install` makes them), it runs
// the verb that script stands for, so scripts written for Kafka run unchanged.
#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/server_main.h"
#include "tools/commands.h"
#include "version.h"

namespace {

// Kafka's scripts and the verbs that take their flags.
constexpr std::array<std::pair<std::string_view, std::string_view>, 19> k_kafka_scripts{{
    {"kafka-server-start", "server"},
    {"kafka-topics", "topics"},
    {"kafka-console-producer", "produce"},
    {"kafka-console-consumer", "consume"},
    {"kafka-consumer-groups", "groups"},
    {"kafka-configs", "configs"},
    {"kafka-delete-records", "delete-records"},
    {"kafka-reassign-partitions", "reassign-partitions"},
    {"kafka-leader-election", "leader-election"},
    {"kafka-dump-log", "dump-log"},
    {"kafka-transactions", "transactions"},
    {"kafka-acls", "acls"},
    {"kafka-producer-perf-test", "perf produce"},
    {"kafka-consumer-perf-test", "perf consume"},
    {"kafka-metadata-quorum", "metadata-quorum"},
    {"kafka-log-dirs", "log-dirs"},
    {"kafka-get-offsets", "get-offsets"},
    {"kafka-storage", "storage"},
    {"kafka-features", "features"},
}};

// The verb (one or two words) for the name this process was called by:
// "kafka-topics.sh" or "kafka-topics", with any directory; empty otherwise.
std::vector<std::string> verb_for(std::string_view argv0) {
    if (auto slash = argv0.rfind('/'); slash != std::string_view::npos) {
        argv0.remove_prefix(slash + 1);
    }
    if (argv0.size() > 3 && argv0.substr(argv0.size() - 3) == ".sh") {
        argv0.remove_suffix(3);
    }
    for (const auto& [script, verb] : k_kafka_scripts) {
        if (argv0 == script) {
            std::vector<std::string> words;
            size_t start = 0;
            while (start <= verb.size()) {
                size_t space = verb.find(' ', start);
                words.emplace_back(
                    verb.substr(start, space == verb.npos ? verb.npos : space - start));
                if (space == verb.npos) {
                    break;
                }
                start = space + 1;
            }
            return words;
        }
    }
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    // kafka-topics.sh --list ... is samsa topics --list ...
    std::vector<std::string> dispatched;
    std::vector<char*> args;
    if (auto verb = verb_for(argc > 0 ? argv[0] : ""); !verb.empty()) {
        dispatched = std::move(verb);
        args.push_back(argv[0]);
        for (auto& w : dispatched) {
            args.push_back(w.data());
        }
        args.insert(args.end(), argv + 1, argv + argc);
        args.push_back(nullptr);
        argc = int(args.size() - 1);
        argv = args.data();
    }

    CLI::App app{"Samsa: a Kafka-compatible streaming platform", "samsa"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string(samsa::k_version));

    samsa::server::server_command server_cmd;
    auto* server = app.add_subcommand("server", "Run a broker (a one-node cluster by default)");
    server->add_option("config", server_cmd.config_file, "server.properties file")
        ->check(CLI::ExistingFile);
    server->add_option("--override", server_cmd.overrides,
                       "Override a config key, key=value (repeatable)");
    std::string cluster_id;
    server->add_option("--cluster-id", cluster_id,
                       "Cluster id (base64url uuid) to format fresh log dirs with; every node "
                       "of a multi-node cluster needs the same one");
    server->add_flag("--help-config", server_cmd.help_config,
                     "List every config key with its default and exit");

    auto* version = app.add_subcommand("version", "Print the version and exit");

    auto tools = samsa::tools::add_tool_commands(app);

    CLI11_PARSE(app, argc, argv);

    if (*server) {
        if (!cluster_id.empty()) {
            server_cmd.cluster_id = cluster_id;
        }
        return samsa::server::run_server_command(server_cmd);
    }
    if (*version) {
        std::printf("%s\n", std::string(samsa::k_version).c_str());
        return 0;
    }
    if (auto code = samsa::tools::run_selected(tools)) {
        return *code;
    }
    return 0;
}
