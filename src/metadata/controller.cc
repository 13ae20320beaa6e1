#include "metadata/controller.h"

#include <spdlog/spdlog.h>

#include <cassert>
#include <limits>

#include "common/logging/loggers.h"
#include "metadata/acl_changes.h"
#include "metadata/client_quota_alteration.h"
#include "metadata/config_alteration.h"
#include "metadata/config_view.h"
#include "metadata/controller_apis.h"
#include "metadata/feature_update.h"
#include "metadata/metadata_delta.h"
#include "metadata/partition_creation.h"
#include "metadata/partition_reassignment.h"
#include "metadata/scram_alteration.h"
#include "metadata/topic_creation.h"
#include "metadata/topic_deletion.h"

namespace samsa::metadata {

controller::controller(const config::broker_config& config, metadata_log_writer& log,
                       metadata_cache& cache, std::shared_ptr<const metadata_image> replayed,
                       bool publishes)
    : _config(config),
      _log(&log),
      _cache(cache),
      _image(std::move(replayed)),
      _publishes(publishes),
      _active(publishes),
      _rng(std::random_device{}()) {}

void controller::set_active(bool active, std::shared_ptr<const metadata_image> committed) {
    _active = active;
    if (committed) {
        _image = std::move(committed);
    }
    _sessions.clear();
    if (active) {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(_config.broker_session_timeout_ms);
        for (const auto& [id, b] : _image->brokers) {
            _sessions[id] = broker_session{deadline, false};
        }
        arm_session_timer();
        if (_config.auto_leader_rebalance_enable) {
            arm_rebalance_timer();
        }
    }
}

void controller::after_commit(std::function<void()> finish,
                              std::function<void(const error&)> on_failure) {
    auto offset = _last_append;
    _last_append.reset();
    if (!offset) {
        finish();
        return;
    }
    _log->when_committed(
        *offset, [this, finish = std::move(finish), on_failure = std::move(on_failure)](status s) {
            if (!s) {
                // Leadership moved before the batch committed: the working image
                // may hold records that will never be; restart from the committed.
                error e = s.err().code == error_code::not_leader_or_follower
                              ? error(error_code::not_controller, s.err().message)
                              : s.err();
                on_failure(e);
            }
            finish();
        });
}

controller::~controller() {
    stop();
}

void controller::subscribe(image_listener listener) {
    assert(!_running && "subscribe before start()");
    _listeners.push_back(std::move(listener));
}

void controller::start() {
    if (_running) {
        return;
    }
    _running = true;
    _work = std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(
        _io.get_executor());
    if (_publishes) {
        asio::post(_io, [this] {
            _cache.update(_image);
            auto empty = std::make_shared<const metadata_image>();
            for (const auto& l : _listeners) {
                l(empty, _image);
            }
        });
    }
    _thread = std::thread([this] { _io.run(); });
}

void controller::stop() {
    if (!_running) {
        return;
    }
    _running = false;
    if (_session_timer || _rebalance_timer) {
        asio::post(_io, [this] {
            if (_session_timer) {
                _session_timer->cancel();
            }
            if (_rebalance_timer) {
                _rebalance_timer->cancel();
            }
        });
    }
    _work.reset();
    _io.stop();
    if (_thread.joinable()) {
        _thread.join();
    }
}

result<int64_t> controller::commit(std::vector<metadata_record> records) {
    if (!_active) {
        return error(error_code::not_controller, "this node is not the active controller");
    }
    // Applying first proves the records consistent with the image, so the log
    // never holds a batch that replay would refuse.
    metadata_delta delta(_image);
    for (const auto& r : records) {
        if (auto s = delta.apply(r); !s) {
            logging::controller().error("event=metadata_records_inconsistent error=\"{}\"",
                                        s.err().message);
            return error(error_code::unknown_server_error, s.err().message);
        }
    }
    auto last = _log->append(records);
    if (!last) {
        logging::controller().error("event=metadata_append_failed error=\"{}\"",
                                    last.err().message);
        return last.err();
    }
    if (_publishes) {
        publish(delta.build(*last));
    } else {
        _image = delta.build(*last);  // the quorum publishes once committed
        _last_append = *last;
    }
    return *last;
}

void controller::publish(std::shared_ptr<const metadata_image> next) {
    auto prev = std::move(_image);
    _image = next;
    _cache.update(next);
    for (const auto& l : _listeners) {
        l(prev, next);
    }
}

template <typename Request, typename Plan>
auto controller::run(Plan&& plan_fn) {
    const config::config_set broker =
        effective_broker_config(_config.values, *_image, _config.node_id);
    const controller_state state{*_image, _config, broker, _rng};
    auto plan = plan_fn(state);
    if (!plan.records.empty()) {
        if (auto committed = commit(std::move(plan.records)); !committed) {
            fail_pending<Request>(plan.response, committed.err());
        }
    }
    return std::move(plan.response);
}

// ---- operations on the controller thread

result<int64_t> controller::do_register_broker(const broker_registration& reg) {
    std::vector<metadata_record> records;
    if (!_image->features.count(metadata_version_feature)) {
        // A fresh log: first the metadata.version its records are written in,
        // and what the log was formatted with (Kafka's bootstrap records).
        records = _bootstrap;
        logging::controller().info("event=metadata_bootstrapped records={}", records.size());
    }
    const int64_t epoch = _log->end_offset() + int64_t(records.size());
    protocol::register_broker_record r;
    r.broker_id = reg.id;
    r.incarnation_id = reg.incarnation_id;
    r.broker_epoch = epoch;
    r.rack = reg.rack;
    r.fenced = true;
    r.in_controlled_shutdown = false;
    for (const auto& e : reg.endpoints) {
        auto& ep = r.end_points.emplace_back();
        ep.name = e.listener_name;
        ep.host = e.host;
        ep.port = e.port;
        ep.security_protocol = e.security_protocol;
    }
    for (const auto& [name, range] : reg.supported_features) {
        auto& f = r.features.emplace_back();
        f.name = name;
        f.min_supported_version = range.first;
        f.max_supported_version = range.second;
    }
    records.emplace_back(std::move(r));
    if (_publishes) {
        // A one-node cluster on a local log has no one to catch up with. With
        // the quorum the broker is unfenced by its heartbeat once caught up.
        protocol::unfence_broker_record u;
        u.id = reg.id;
        u.epoch = epoch;
        records.emplace_back(u);
    }
    auto committed = commit(std::move(records));
    if (!committed) {
        return committed.err();
    }
    logging::controller().info("event=broker_registered node_id={} broker_epoch={}", reg.id, epoch);
    return epoch;
}

protocol::create_topics_response controller::do_create_topics(
    const protocol::create_topics_request& req) {
    return run<protocol::create_topics_request>(
        [&](const controller_state& s) { return plan_create_topics(s, req); });
}

protocol::delete_topics_response controller::do_delete_topics(
    const protocol::delete_topics_request& req) {
    return run<protocol::delete_topics_request>(
        [&](const controller_state& s) { return plan_delete_topics(s, req); });
}

protocol::create_partitions_response controller::do_create_partitions(
    const protocol::create_partitions_request& req) {
    return run<protocol::create_partitions_request>(
        [&](const controller_state& s) { return plan_create_partitions(s, req); });
}

protocol::alter_configs_response controller::do_alter_configs(
    const protocol::alter_configs_request& req) {
    return run<protocol::alter_configs_request>(
        [&](const controller_state& s) { return plan_alter_configs(s, req); });
}

protocol::incremental_alter_configs_response controller::do_incremental_alter_configs(
    const protocol::incremental_alter_configs_request& req) {
    return run<protocol::incremental_alter_configs_request>(
        [&](const controller_state& s) { return plan_incremental_alter_configs(s, req); });
}

protocol::alter_user_scram_credentials_response controller::do_alter_user_scram_credentials(
    const protocol::alter_user_scram_credentials_request& req) {
    return run<protocol::alter_user_scram_credentials_request>(
        [&](const controller_state& s) { return plan_alter_user_scram_credentials(s, req); });
}

protocol::create_acls_response controller::do_create_acls(
    const protocol::create_acls_request& req) {
    return run<protocol::create_acls_request>(
        [&](const controller_state& s) { return plan_create_acls(s, req); });
}

protocol::alter_client_quotas_response controller::do_alter_client_quotas(
    const protocol::alter_client_quotas_request& req) {
    return run<protocol::alter_client_quotas_request>(
        [&](const controller_state& s) { return plan_alter_client_quotas(s, req); });
}

protocol::update_features_response controller::do_update_features(
    const protocol::update_features_request& req) {
    return run<protocol::update_features_request>(
        [&](const controller_state& s) { return plan_update_features(s, req, _config.node_id); });
}

protocol::delete_acls_response controller::do_delete_acls(
    const protocol::delete_acls_request& req) {
    return run<protocol::delete_acls_request>(
        [&](const controller_state& s) { return plan_delete_acls(s, req); });
}

protocol::alter_partition_reassignments_response controller::do_alter_partition_reassignments(
    const protocol::alter_partition_reassignments_request& req) {
    return run<protocol::alter_partition_reassignments_request>(
        [&](const controller_state& s) { return plan_alter_partition_reassignments(s, req); });
}

result<producer_id_block> controller::do_allocate_producer_ids(
    int32_t count, std::optional<std::pair<node_id, int64_t>> requester) {
    if (count <= 0) {
        return error(error_code::invalid_request, "producer id block size must be positive");
    }
    if (requester) {
        const auto [id, epoch] = *requester;
        auto b = _image->brokers.find(id);
        if (b == _image->brokers.end()) {
            return error(error_code::stale_broker_epoch,
                         fmt::format("No broker registration found for broker {}", id));
        }
        if (b->second.epoch != epoch) {
            return error(error_code::stale_broker_epoch,
                         fmt::format("Expected broker epoch {}, but got broker epoch {}",
                                     b->second.epoch, epoch));
        }
    }
    const int64_t first = _image->producer_ids.next_producer_id;
    if (first > std::numeric_limits<int64_t>::max() - count) {
        return error(error_code::unknown_server_error,
                     "Exhausted all producerIds as the next block's end producerId has exceeded "
                     "the int64 type limit");
    }
    protocol::producer_ids_record r;
    if (requester) {
        r.broker_id = requester->first;
        r.broker_epoch = requester->second;
    } else {
        r.broker_id = node_id{_config.node_id};
        auto self = _image->brokers.find(node_id{_config.node_id});
        r.broker_epoch = self == _image->brokers.end() ? -1 : self->second.epoch;
    }
    r.next_producer_id = first + count;
    auto committed = commit({metadata_record(r)});
    if (!committed) {
        return committed.err();
    }
    return producer_id_block{first, count};
}

// ---- the awaitable entry points

// Each operation keeps its argument and result in its own frame and hands the
// controller thread a lambda of references (see on_controller).

asio::awaitable<result<int64_t>> controller::register_broker(broker_registration reg) {
    std::optional<result<int64_t>> out;
    auto op = [&](std::function<void()> finish) {
        out.emplace(do_register_broker(reg));
        after_commit(std::move(finish), [&](const error& e) { out.emplace(e); });
    };
    co_await on_controller_async(op);
    co_return std::move(*out);
}

result<int64_t> controller::register_broker_blocking(broker_registration reg) {
    assert(_running && "the controller thread must be running");
    std::promise<result<int64_t>> done;
    asio::post(_io, [&] { done.set_value(do_register_broker(reg)); });
    return done.get_future().get();
}

asio::awaitable<result<producer_id_block>> controller::allocate_producer_ids(
    int32_t count, std::optional<std::pair<node_id, int64_t>> requester) {
    std::optional<result<producer_id_block>> out;
    auto op = [&](std::function<void()> finish) {
        out.emplace(do_allocate_producer_ids(count, requester));
        after_commit(std::move(finish), [&](const error& e) { out.emplace(e); });
    };
    co_await on_controller_async(op);
    co_return std::move(*out);
}

}  // namespace samsa::metadata
