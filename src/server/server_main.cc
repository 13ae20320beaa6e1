#include "server/server_main.h"

#include <spdlog/spdlog.h>
#include <algorithm>
#include <fstream>

#include <sys/resource.h>
#include <systemd/sd-daemon.h>
#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <thread>

#include "cluster/partition.h"
#include "common/config/broker_config.h"
#include "common/config/config_help.h"
#include "common/config/meta_properties.h"
#include "common/logging/log_output.h"
#include "common/logging/loggers.h"
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

// The most descriptors the kernel lets a process have (fs.nr_open).
rlim_t kernel_open_file_ceiling() {
    std::ifstream in("/proc/sys/fs/nr_open");
    unsigned long long n = 0;
    return in >> n && n > 0 ? rlim_t(n) : rlim_t(0);
}

// Every partition holds its segment and index files open (as Kafka's do), so
// a broker with thousands of partitions needs thousands of descriptors (three
// per idle partition: 30,000 for 10,000 partitions). Take the hard limit, as
// Kafka's packaging asks of operators; a broker allowed to (root, or
// CAP_SYS_RESOURCE) first raises the hard limit to the kernel's ceiling, up
// to 1,048,576. Say what it got.
void raise_open_file_limit() {
    struct rlimit lim {};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        return;
    }
    const rlim_t was = lim.rlim_cur;
    const rlim_t wanted = std::min<rlim_t>(kernel_open_file_ceiling(), rlim_t(1) << 20);
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < wanted) {
        struct rlimit higher {
            wanted, wanted
        };
        if (::setrlimit(RLIMIT_NOFILE, &higher) == 0) {
            lim = higher;
        }
    }
    if (lim.rlim_cur < lim.rlim_max) {
        struct rlimit raised = lim;
        raised.rlim_cur = lim.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
            lim = raised;
        }
    }
    logging::server().info("event=open_file_limit limit={} was={}",
                           static_cast<uint64_t>(lim.rlim_cur), static_cast<uint64_t>(was));
}

// log.* from the config: where lines go, how they look, and the levels.
status configure_logging(const config::broker_config& cfg) {
    logging::output_settings out;
    out.json = cfg.log_json;
    out.file_path = cfg.log_file_path;
    out.file_max_bytes = static_cast<uint64_t>(cfg.log_file_max_bytes);
    out.file_max_backups = cfg.log_file_max_backups;
    if (auto st = logging::configure_output(out); !st) {
        return st;
    }
    if (auto st = logging::set_level(logging::root_name, cfg.log_level); !st) {
        return st;
    }
    auto overrides = logging::parse_level_overrides(cfg.log_level_overrides);
    if (!overrides) {
        return overrides.err();
    }
    for (const auto& [name, level] : *overrides) {
        if (auto st = logging::set_level(name, level); !st) {
            return st;
        }
    }
    return {};
}

}  // namespace

int run_server_command(const server_command& cmd) {
    if (cmd.help_config) {
        std::fputs(config::broker_and_topic_config_help().c_str(), stdout);
        return 0;
    }
    (void)logging::root();  // the named loggers exist, with their default sink, from here
    // A peer that closes its end while a response goes out must cost only its
    // own connection: sendfile(2), unlike asio's sends (MSG_NOSIGNAL), raises
    // SIGPIPE on a closed socket, whose default action kills the process.
    // With it ignored the write fails with EPIPE and the connection closes.
    std::signal(SIGPIPE, SIG_IGN);
    // Catch SIGINT/SIGTERM from the very start: one that arrives while the
    // logs load is delivered once the broker is up, and it then stops cleanly.
    asio::io_context signals_ctx(1);
    asio::signal_set signals(signals_ctx, SIGINT, SIGTERM);

    auto loaded = cmd.config_file.empty() ? [&]() -> result<config::loaded_broker_config> {
        auto ov = config::parse_overrides(cmd.overrides);
        if (!ov) {
            return ov.err();
        }
        return config::make_broker_config(std::map<std::string, std::string>{}, *ov);
    }()
        : config::load_broker_config(cmd.config_file, cmd.overrides);
    if (!loaded) {
        logging::server().error("event=invalid_config error=\"{}\"", loaded.err().message);
        return 1;
    }
    for (const auto& w : loaded->warnings) {
        logging::server().warn("event=config_warning message=\"{}\"", w.message);
    }
    const config::broker_config& cfg = loaded->config;
    if (auto st = configure_logging(cfg); !st) {
        logging::server().error("event=invalid_config error=\"{}\"", st.err().message);
        return 1;
    }
    raise_open_file_limit();

    std::vector<std::filesystem::path> dirs(cfg.log_dirs.begin(), cfg.log_dirs.end());
    if (!cfg.metadata_log_dir.empty()) {
        dirs.emplace_back(cfg.metadata_log_dir);
    }
    if (cmd.cluster_id && !uuid::parse(*cmd.cluster_id)) {
        logging::server().error(
            "event=invalid_config error=\"--cluster-id {} is not a base64url uuid\"",
            *cmd.cluster_id);
        return 1;
    }
    auto identity = config::ensure_meta_properties(dirs, cfg.node_id, cmd.cluster_id);
    if (!identity) {
        logging::server().error("event=storage_error error=\"{}\"", identity.err().message);
        return 1;
    }
    for (const auto& d : identity->dirs) {
        if (d.created) {
            logging::server().info("event=log_dir_formatted dir={} cluster_id={}", d.dir.string(),
                                   identity->cluster_id);
        }
    }

    logging::server().info(
        "event=starting version={} node_id={} cluster_id={} listeners={} log_dirs={}", k_version,
        cfg.node_id, identity->cluster_id, join_listeners(cfg.listeners),
        fmt::join(cfg.log_dirs, ","));

    // The fault harness's bug on purpose (cluster/partition.h): only from the
    // environment, and loud, so no configuration can turn it on by mistake.
    if (const char* unsafe = std::getenv("SAMSA_UNSAFE_TEST_ACK_AT_LOG_END");
        unsafe && std::string_view(unsafe) == "1") {
        cluster::partition::set_unsafe_ack_at_log_end(true);
        logging::server().error(
            "event=unsafe_test_switch name=SAMSA_UNSAFE_TEST_ACK_AT_LOG_END reason=\"acks=all is "
            "answered at the leader's log end: acknowledged records can be lost; for the fault "
            "harness only\"");
    }
    server srv(cfg, identity->cluster_id);
    // A signal may come while start() still waits for the quorum or for this
    // broker's registration: it interrupts that wait.
    signals.async_wait([&](const std::error_code& ec, int sig) {
        if (!ec) {
            logging::server().info("event=shutdown_requested signal={}", sig);
            srv.interrupt_start();
        }
    });
    std::thread signal_thread([&] { signals_ctx.run(); });
    if (auto st = srv.start(); !st) {
        logging::server().error("event=start_failed error=\"{}\"", st.err().message);
        signals.cancel();
        signal_thread.join();
        return 1;
    }
    logging::server().info("event=started node_id={} advertised={}", cfg.node_id,
                           join_listeners(cfg.advertised_listeners));
    // systemd's Type=notify (packaging/samsa.service): ready once the
    // listeners serve. Without $NOTIFY_SOCKET this does nothing.
    (void)sd_notifyf(0, "READY=1\nSTATUS=serving as node %d", cfg.node_id);
    signal_thread.join();  // until the signal
    (void)sd_notify(0, "STOPPING=1");
    srv.stop();
    return 0;
}

}  // namespace samsa::server
