#pragma once
// `samsa server`: loads the configuration, prepares the log directories
// (meta.properties), runs the broker until SIGINT/SIGTERM.
#include <string>
#include <vector>

namespace samsa::server {

struct server_command {
    std::string config_file;             // server.properties; empty = defaults only
    std::vector<std::string> overrides;  // "key=value"
    bool help_config = false;
};

int run_server_command(const server_command& cmd);

}  // namespace samsa::server
