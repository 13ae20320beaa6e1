#include "server/server_main.h"

#include <spdlog/spdlog.h>

#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <filesystem>

#include "common/config/broker_config.h"
#include "common/config/meta_properties.h"
#include "server/server.h"
#include "version.h"

namespace samsa::server {

namespace {

std::string join_listeners(const std::vector<config::listener>& ls) {
    std::string out;
    for (const auto& l : ls) {
        if (!out.empty()) {
            out += ",";
        }
        out += l.to_string();
    }
    return out;
}

void print_help_config() {
    for (const auto* key : config::broker_config_def().sorted_keys()) {
        std::string def;
        switch (key->def.k) {
            case config::default_value::kind::required:
                def = "(required)";
                break;
            case config::default_value::kind::null:
                def = "null";
                break;
            case config::default_value::kind::value:
                def = key->def.raw.empty() ? "\"\"" : key->def.raw;
                break;
        }
        std::printf("%s\n    type: %s, default: %s, importance: %s, update mode: %s\n",
                    key->name.c_str(), std::string(config::type_name(key->type)).c_str(),
                    def.c_str(), std::string(config::importance_name(key->imp)).c_str(),
                    std::string(config::update_mode_name(key->mode)).c_str());
        if (!key->valid.description().empty()) {
            std::printf("    valid values: %s\n", key->valid.description().c_str());
        }
        if (!key->doc.empty()) {
            std::printf("    %s\n", key->doc.c_str());
        }
    }
}

}  // namespace

int run_server_command(const server_command& cmd) {
    if (cmd.help_config) {
        print_help_config();
        return 0;
    }
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] %^%l%$ %v");

    auto loaded = cmd.config_file.empty() ? [&]() -> result<config::loaded_broker_config> {
        auto ov = config::parse_overrides(cmd.overrides);
        if (!ov) {
            return ov.err();
        }
        return config::make_broker_config(std::map<std::string, std::string>{}, *ov);
    }()
        : config::load_broker_config(cmd.config_file, cmd.overrides);
    if (!loaded) {
        spdlog::error("event=invalid_config error=\"{}\"", loaded.err().message);
        return 1;
    }
    for (const auto& w : loaded->warnings) {
        spdlog::warn("event=config_warning message=\"{}\"", w.message);
    }
    const config::broker_config& cfg = loaded->config;

    std::vector<std::filesystem::path> dirs(cfg.log_dirs.begin(), cfg.log_dirs.end());
    if (!cfg.metadata_log_dir.empty()) {
        dirs.emplace_back(cfg.metadata_log_dir);
    }
    auto identity = config::ensure_meta_properties(dirs, cfg.node_id);
    if (!identity) {
        spdlog::error("event=storage_error error=\"{}\"", identity.err().message);
        return 1;
    }
    for (const auto& d : identity->dirs) {
        if (d.created) {
            spdlog::info("event=log_dir_formatted dir={} cluster_id={}", d.dir.string(),
                         identity->cluster_id);
        }
    }

    spdlog::info("event=starting version={} node_id={} cluster_id={} listeners={} log_dirs={}",
                 k_version, cfg.node_id, identity->cluster_id, join_listeners(cfg.listeners),
                 fmt::join(cfg.log_dirs, ","));

    server srv(cfg, identity->cluster_id);
    if (auto st = srv.start(); !st) {
        spdlog::error("event=start_failed error=\"{}\"", st.err().message);
        return 1;
    }
    spdlog::info("event=started node_id={} advertised={}", cfg.node_id,
                 join_listeners(cfg.advertised_listeners));

    asio::io_context signals_ctx(1);
    asio::signal_set signals(signals_ctx, SIGINT, SIGTERM);
    signals.async_wait([&](const std::error_code& ec, int sig) {
        if (!ec) {
            spdlog::info("event=shutdown_requested signal={}", sig);
        }
    });
    signals_ctx.run();
    srv.stop();
    return 0;
}

}  // namespace samsa::server
