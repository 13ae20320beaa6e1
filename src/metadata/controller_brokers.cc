// The controller's broker lifecycle: registration, heartbeats, sessions,
// fencing (KIP-631). Part of metadata::controller (controller.h).
#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "metadata/broker_fencing.h"
#include "metadata/config_view.h"
#include "metadata/controller.h"
#include "metadata/isr_change.h"
#include "metadata/leader_election.h"

namespace samsa::metadata {

namespace {

using steady = std::chrono::steady_clock;

}  // namespace

void controller::heard_from(node_id broker_id) {
    _sessions[broker_id] = broker_session{
        steady::now() + std::chrono::milliseconds(_config.broker_session_timeout_ms), true};
}

protocol::broker_registration_response controller::do_broker_registration(
    const protocol::broker_registration_request& req) {
    protocol::broker_registration_response resp;
    if (!_active) {
        resp.error_code = to_wire(error_code::not_controller);
        return resp;
    }
    if (!_image->cluster_id.empty() && req.cluster_id != _image->cluster_id) {
        resp.error_code = to_wire(error_code::inconsistent_cluster_id);
        return resp;
    }
    if (auto it = _image->brokers.find(req.broker_id); it != _image->brokers.end()) {
        // A retried registration of the same incarnation gets the same epoch.
        if (it->second.incarnation_id == req.incarnation_id) {
            resp.broker_epoch = it->second.epoch;
            heard_from(req.broker_id);
            return resp;
        }
        // Another process with the same node.id while this one's session is
        // live: refused, as Kafka's ClusterControlManager refuses it, until
        // that session ends (a crashed broker restarting waits for its old
        // session to expire). A session this controller only assumed when it
        // became active, without hearing from the broker, does not count: a
        // live broker heartbeats within one interval, and a single node
        // restarting after a crash is not held up by its own old session.
        auto session = _sessions.find(req.broker_id);
        if (!it->second.fenced && session != _sessions.end() && session->second.heard &&
            session->second.deadline > steady::now()) {
            logging::controller().warn(
                "event=broker_registration_refused node_id={} incarnation_id={} "
                "registered_incarnation_id={} error=DUPLICATE_BROKER_REGISTRATION "
                "reason=\"another broker is registered with that broker id\"",
                req.broker_id, req.incarnation_id.to_string(),
                it->second.incarnation_id.to_string());
            resp.error_code = to_wire(error_code::duplicate_broker_registration);
            return resp;
        }
    }
    broker_registration reg;
    reg.id = req.broker_id;
    reg.incarnation_id = req.incarnation_id;
    reg.rack = req.rack && !req.rack->empty() ? req.rack : std::nullopt;
    for (const auto& l : req.listeners) {
        broker_endpoint ep;
        ep.listener_name = l.name;
        ep.host = l.host;
        ep.port = l.port;
        ep.security_protocol = l.security_protocol;
        reg.endpoints.push_back(std::move(ep));
    }
    for (const auto& f : req.features) {
        reg.supported_features[f.name] = {f.min_supported_version, f.max_supported_version};
    }
    auto epoch = do_register_broker(reg);
    if (!epoch) {
        resp.error_code = to_wire(epoch.err().code);
        return resp;
    }
    resp.broker_epoch = *epoch;
    heard_from(req.broker_id);
    return resp;
}

protocol::broker_heartbeat_response controller::do_broker_heartbeat(
    const protocol::broker_heartbeat_request& req) {
    protocol::broker_heartbeat_response resp;
    if (!_active) {
        resp.error_code = to_wire(error_code::not_controller);
        return resp;
    }
    auto it = _image->brokers.find(req.broker_id);
    if (it == _image->brokers.end() || it->second.epoch != req.broker_epoch) {
        resp.error_code = to_wire(error_code::stale_broker_epoch);
        return resp;
    }
    const broker_registration& b = it->second;
    heard_from(req.broker_id);
    resp.is_caught_up = req.current_metadata_offset >= b.epoch;
    std::vector<metadata_record> records;
    if (req.want_shut_down) {
        // Controlled shutdown: leaderships move away before the broker goes.
        records = plan_fence_broker(*_image, req.broker_id, [this](const std::string& t) {
            return unclean_election_allowed(t);
        });
        resp.should_shut_down = true;
        resp.is_fenced = true;
    } else if (b.fenced && !req.want_fence && resp.is_caught_up) {
        records = plan_unfence_broker(*_image, req.broker_id);
        resp.is_fenced = false;
    } else if (!b.fenced && req.want_fence) {
        records = plan_fence_broker(*_image, req.broker_id);
        resp.is_fenced = true;
    } else {
        resp.is_fenced = b.fenced;
    }
    if (!records.empty()) {
        // `b` is in the image that commit() replaces (and may free).
        if (auto c = commit(std::move(records)); !c) {
            resp.error_code = to_wire(c.err().code);
            return resp;
        }
        logging::controller().info("event=broker_{} node_id={} broker_epoch={}",
                                   resp.is_fenced ? "fenced" : "unfenced", req.broker_id,
                                   req.broker_epoch);
    }
    return resp;
}

protocol::unregister_broker_response controller::do_unregister_broker(
    const protocol::unregister_broker_request& req) {
    protocol::unregister_broker_response resp;
    if (!_active) {
        resp.error_code = to_wire(error_code::not_controller);
        return resp;
    }
    auto it = _image->brokers.find(req.broker_id);
    if (it == _image->brokers.end()) {
        resp.error_code = to_wire(error_code::broker_id_not_registered);
        resp.error_message =
            "Broker ID " + std::to_string(req.broker_id.value()) + " is not currently registered";
        return resp;
    }
    // As Kafka's handleBrokerUnregistered: out of every ISR it is in (its
    // partitions led by others where possible), then the registration.
    auto records = plan_fence_broker(*_image, req.broker_id, [this](const std::string& t) {
        return unclean_election_allowed(t);
    });
    protocol::unregister_broker_record r;
    r.broker_id = req.broker_id;
    r.broker_epoch = it->second.epoch;
    records.push_back(metadata_record(r));
    if (auto c = commit(std::move(records)); !c) {
        resp.error_code = to_wire(c.err().code);
        resp.error_message = c.err().message;
        return resp;
    }
    _sessions.erase(req.broker_id);
    logging::controller().info("event=broker_unregistered node_id={}", req.broker_id);
    return resp;
}

bool controller::unclean_election_allowed(const std::string& topic) const {
    const auto broker = effective_broker_config(_config.values, *_image, _config.node_id);
    auto resolved = config::resolve_topic_config(_image->topic_overrides(topic), broker);
    return resolved && resolved->config.unclean_leader_election_enable;
}

void controller::arm_rebalance_timer() {
    if (!_rebalance_timer) {
        _rebalance_timer = std::make_unique<asio::steady_timer>(_io);
    }
    _rebalance_timer->expires_after(std::chrono::seconds(
        std::max<int64_t>(1, _config.leader_imbalance_check_interval_seconds)));
    _rebalance_timer->async_wait([this](const std::error_code& ec) {
        if (ec || !_active) {
            return;
        }
        if (!_last_append) {
            auto records =
                plan_auto_leader_rebalance(*_image, _config.leader_imbalance_per_broker_percentage);
            if (!records.empty()) {
                const size_t n = records.size();
                if (auto c = commit(std::move(records)); c) {
                    logging::controller().info(
                        "event=preferred_leader_election partitions={} reason=imbalance", n);
                }
                _last_append.reset();  // nobody waits for it
            }
        }
        arm_rebalance_timer();
    });
}

asio::awaitable<protocol::elect_leaders_response> controller::handle_elect_leaders(
    protocol::elect_leaders_request req, int16_t version) {
    std::optional<protocol::elect_leaders_response> out;
    auto op = [&](std::function<void()> finish) {
        if (!_active) {
            out.emplace().error_code = to_wire(error_code::not_controller);
            finish();
            return;
        }
        auto plan = plan_elect_leaders(*_image, req, version);
        out.emplace(std::move(plan.response));
        if (!plan.records.empty()) {
            if (auto c = commit(std::move(plan.records)); !c) {
                out->error_code = to_wire(c.err().code);
                finish();
                return;
            }
        }
        after_commit(std::move(finish), [&](const error& e) { out->error_code = to_wire(e.code); });
    };
    co_await on_controller_async(op);
    co_return std::move(*out);
}

void controller::arm_session_timer() {
    if (!_session_timer) {
        _session_timer = std::make_unique<asio::steady_timer>(_io);
    }
    // A broker is fenced within a quarter of its session after it expired.
    const auto period =
        std::chrono::milliseconds(std::max(50, _config.broker_session_timeout_ms / 4));
    _session_timer->expires_after(period);
    _session_timer->async_wait([this](const std::error_code& ec) {
        if (ec || !_active) {
            return;
        }
        check_broker_sessions();
        arm_session_timer();
    });
}

void controller::check_broker_sessions() {
    if (!_active || _last_append) {
        return;
    }
    const auto now = steady::now();
    for (const auto& [id, b] : _image->brokers) {
        if (b.fenced) {
            continue;
        }
        auto session = _sessions.find(id);
        if (session == _sessions.end()) {
            _sessions[id] = broker_session{
                now + std::chrono::milliseconds(_config.broker_session_timeout_ms), false};
            continue;
        }
        if (session->second.deadline > now) {
            continue;
        }
        auto records = plan_fence_broker(
            *_image, id, [this](const std::string& t) { return unclean_election_allowed(t); });
        if (records.empty()) {
            continue;
        }
        // `id` and `b` are in the image that commit() replaces (and may free).
        const node_id node = id;
        const int64_t epoch = b.epoch;
        if (auto c = commit(std::move(records)); !c) {
            logging::controller().warn("event=broker_fence_failed node_id={} error=\"{}\"", node,
                                       c.err().message);
            return;
        }
        _last_append.reset();  // nobody waits for it
        logging::controller().warn(
            "event=broker_session_expired node_id={} broker_epoch={} action=fenced", node, epoch);
        return;  // the image changed; the next check sees the rest
    }
}

asio::awaitable<protocol::alter_partition_response> controller::handle_alter_partition(
    protocol::alter_partition_request req, int16_t version) {
    std::optional<protocol::alter_partition_response> out;
    auto op = [&](std::function<void()> finish) {
        if (!_active) {
            out.emplace().error_code = to_wire(error_code::not_controller);
            finish();
            return;
        }
        auto plan = plan_alter_partition(*_image, req, version);
        out.emplace(std::move(plan.response));
        if (!plan.records.empty()) {
            if (auto c = commit(std::move(plan.records)); !c) {
                out->error_code = to_wire(c.err().code);
                out->topics.clear();
                finish();
                return;
            }
        }
        after_commit(std::move(finish), [&](const error& e) {
            out->error_code = to_wire(e.code);
            out->topics.clear();
        });
    };
    co_await on_controller_async(op);
    co_return std::move(*out);
}

asio::awaitable<protocol::broker_registration_response> controller::handle_broker_registration(
    protocol::broker_registration_request req) {
    std::optional<protocol::broker_registration_response> out;
    auto op = [&](std::function<void()> finish) {
        out.emplace(do_broker_registration(req));
        after_commit(std::move(finish), [&](const error& e) {
            out->error_code = to_wire(e.code);
            out->broker_epoch = -1;
        });
    };
    co_await on_controller_async(op);
    co_return std::move(*out);
}

asio::awaitable<protocol::broker_heartbeat_response> controller::handle_broker_heartbeat(
    protocol::broker_heartbeat_request req) {
    std::optional<protocol::broker_heartbeat_response> out;
    auto op = [&](std::function<void()> finish) {
        out.emplace(do_broker_heartbeat(req));
        after_commit(std::move(finish), [&](const error& e) { out->error_code = to_wire(e.code); });
    };
    co_await on_controller_async(op);
    co_return std::move(*out);
}

}  // namespace samsa::metadata
