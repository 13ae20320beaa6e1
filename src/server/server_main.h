#pragma once
// `samsa server`: loads the configuration, prepares the log directories
// (meta.properties), runs the broker until SIGINT/SIGTERM.
#include <optional>
#include <string>
#include <vector>

namespace samsa::server {

struct server_command {
    std::string config_file;             // server.properties; empty = defaults only
    std::vector<std::string> overrides;  // "key=value"
    bool help_config = false;
    // Formats fresh log dirs with this cluster id (every node of a cluster
    // needs the same one); a random one when unset.
    std::optional<std::string> cluster_id;
};

int run_server_command(const server_command& cmd);

}  // namespace samsa::server
