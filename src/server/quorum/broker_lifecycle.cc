#include "server/quorum/broker_lifecycle.h"

#include <spdlog/spdlog.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/use_awaitable.hpp>
#include <thread>

#include "common/logging/loggers.h"
#include "server/quorum/controller_frontend.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::quorum {

namespace {

// While fenced or shutting down, heartbeats go this often (Kafka's broker
// also heartbeats faster until it is unfenced).
constexpr auto k_fast = std::chrono::milliseconds(100);

}  // namespace

broker_lifecycle::broker_lifecycle(const config::broker_config& cfg, controller_frontend& channel,
                                   metadata_quorum& quorum, asio::any_io_executor ex,
                                   protocol::broker_registration_request registration)
    : _cfg(cfg),
      _channel(channel),
      _quorum(quorum),
      _ex(ex),
      _registration(std::move(registration)),
      _timer(ex),
      _lease_timer(ex) {}

void broker_lifecycle::start() {
    asio::co_spawn(
        _ex, [this]() { return run(); }, asio::detached);
}

void broker_lifecycle::stop() {
    _stopped = true;
    asio::post(_ex, [this] {
        _timer.cancel();
        _lease_timer.cancel();
    });
}

status broker_lifecycle::wait_until_unfenced(std::chrono::milliseconds timeout,
                                             const std::atomic<bool>& interrupted,
                                             const std::function<bool()>& visible) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!_unfenced.load() || !visible()) {
        if (interrupted.load()) {
            return error(error_code::broker_not_available,
                         "shutdown requested while waiting to be registered");
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return error(error_code::request_timed_out,
                         "the controller did not register and unfence this broker within "
                         "initial.broker.registration.timeout.ms");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {};
}

void broker_lifecycle::controlled_shutdown(std::chrono::milliseconds timeout) {
    if (_epoch.load() < 0) {
        return;
    }
    _want_shut_down = true;
    asio::post(_ex, [this] { _timer.cancel(); });
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!_shut_down_agreed.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void broker_lifecycle::keep_lease(const protocol::broker_heartbeat_response* answer,
                                  cluster::leadership_lease::clock::time_point sent) {
    if (!_lease) {
        return;
    }
    const bool fenced = answer && (answer->error_code == to_wire(error_code::stale_broker_epoch) ||
                                   (answer->error_code == 0 && answer->is_fenced));
    if (answer && answer->error_code == 0 && !answer->is_fenced) {
        const auto session = std::chrono::milliseconds(_cfg.broker_session_timeout_ms);
        _lease->extend(sent, session);
        _lease_timer.expires_at(sent + session);
        _lease_timer.async_wait([this](std::error_code ec) {
            if (!ec && !_stopped.load()) {
                log_lease(false);
            }
        });
    } else if (fenced) {
        _lease->revoke();
    }
    log_lease(fenced);
}

void broker_lifecycle::log_lease(bool fenced) {
    const bool held = _lease->held();
    if (held == _lease_held) {
        return;
    }
    _lease_held = held;
    if (held) {
        logging::server().info("event=leadership_lease_held node_id={} broker_epoch={}",
                               _cfg.node_id, _epoch.load());
        return;
    }
    logging::server().warn(
        "event=leadership_lease_lost node_id={} broker_epoch={} reason=\"{}\"", _cfg.node_id,
        _epoch.load(),
        fenced ? "the controller answered that this broker is fenced"
               : "no heartbeat acknowledged within broker.session.timeout.ms; consumers "
                 "fetching above the log end of a partition led here get "
                 "NOT_LEADER_OR_FOLLOWER");
}

asio::awaitable<void> broker_lifecycle::run() {
    while (!_stopped.load()) {
        auto wait = k_fast;
        if (_epoch.load() < 0) {
            auto registered = co_await _channel.register_broker(_registration);
            const bool duplicate =
                registered &&
                registered->error_code == to_wire(error_code::duplicate_broker_registration);
            if (duplicate && !_refused_as_duplicate) {
                // Retried until the other registration's session ends: a crashed
                // broker restarting waits out its old session; a second process
                // with this node.id waits as long as the first one lives.
                logging::server().warn(
                    "event=broker_registration_refused node_id={} "
                    "error=DUPLICATE_BROKER_REGISTRATION reason=\"another broker is registered "
                    "with node id {}; retrying until its session expires\"",
                    _cfg.node_id, _cfg.node_id);
            }
            _refused_as_duplicate = duplicate;
            if (registered && registered->error_code == 0) {
                _epoch = registered->broker_epoch;
                _channel.set_broker_epoch(registered->broker_epoch);
                logging::server().info(
                    "event=broker_registration_accepted node_id={} broker_epoch={}", _cfg.node_id,
                    _epoch.load());
                continue;  // heartbeat at once
            }
        } else {
            protocol::broker_heartbeat_request hb;
            hb.broker_id = node_id{_cfg.node_id};
            hb.broker_epoch = _epoch.load();
            hb.current_metadata_offset = _quorum.applied_offset();
            hb.want_fence = _fence_wanted && _fence_wanted();
            if (hb.want_fence && !_fence_requested) {
                _fence_requested = true;
                logging::server().error(
                    "event=broker_fence_requested node_id={} reason=\"no log dir takes "
                    "writes; leaderships move to other in-sync replicas\"",
                    _cfg.node_id);
            }
            hb.want_shut_down = _want_shut_down.load();
            const auto sent = cluster::leadership_lease::clock::now();
            auto answer = co_await _channel.heartbeat(hb);
            keep_lease(answer ? &*answer : nullptr, sent);
            if (answer && answer->error_code == to_wire(error_code::stale_broker_epoch)) {
                logging::server().warn(
                    "event=broker_epoch_stale node_id={} broker_epoch={} action=register",
                    _cfg.node_id, _epoch.load());
                _epoch = -1;
                _unfenced = false;
                continue;
            }
            if (answer && answer->error_code == 0) {
                const bool was = _unfenced.load();
                _unfenced = !answer->is_fenced;
                if (_unfenced.load() != was) {
                    logging::server().info("event=broker_{} node_id={} broker_epoch={}",
                                           _unfenced.load() ? "unfenced" : "fenced", _cfg.node_id,
                                           _epoch.load());
                }
                if (hb.want_shut_down && answer->should_shut_down) {
                    _shut_down_agreed = true;
                }
                if (_unfenced.load() && !_want_shut_down.load()) {
                    wait = std::chrono::milliseconds(_cfg.broker_heartbeat_interval_ms);
                }
            }
        }
        if (_stopped.load()) {
            break;
        }
        _timer.expires_after(wait);
        std::error_code ec;
        co_await _timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

}  // namespace samsa::server::quorum
