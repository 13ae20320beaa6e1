// The one Samsa binary: `samsa server` runs a broker; the other verbs are the
// command-line tools (src/tools/).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "server/server_main.h"
#include "tools/commands.h"
#include "version.h"

int main(int argc, char** argv) {
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
