#include "coordinator/txn/txn_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/logging/loggers.h"
#include "coordinator/group/group_partitioner.h"
#include "coordinator/txn/transaction_log_serde.h"

namespace samsa::coordinator::txn {

namespace {

// How Kafka's TransactionStateManager answers a state write that failed.
// A coordinator that lost the partition while the write was in flight says
// NOT_COORDINATOR, as Kafka's does: the client finds the new coordinator and
// asks again there, where the write may well have landed. Mapped to
// UNKNOWN_SERVER_ERROR, it made librdkafka abort a commit that the new
// coordinator then completed, and the abort was fatal (INVALID_TXN_STATE).
error_code write_error(error_code ec) {
    switch (ec) {
        case error_code::none:
        case error_code::not_coordinator:
        case error_code::coordinator_not_available:
        case error_code::coordinator_load_in_progress:
            return ec;
        case error_code::unknown_topic_or_partition:
        case error_code::not_enough_replicas:
        case error_code::not_enough_replicas_after_append:
        case error_code::request_timed_out:
            return error_code::coordinator_not_available;
        case error_code::not_leader_or_follower:
        case error_code::kafka_storage_error:
            return error_code::not_coordinator;
        default:
            return error_code::unknown_server_error;
    }
}

}  // namespace

int32_t transaction_partition_for(const std::string& transactional_id, int32_t num_partitions) {
    return offsets_partition_for(transactional_id, num_partitions);
}

txn_manager::txn_manager(txn_config config, cluster::purgatory_driver& driver, clock_fn wall_clock,
                         std::unique_ptr<txn_marker_channel> markers)
    : _config(config),
      _wall_clock(wall_clock),
      _runtime(
          coordinator_runtime_config{transaction_state_topic, 1 << 20, config.append_timeout_ms},
          driver, wall_clock,
          [this](int32_t partition) {
              return std::make_unique<txn_coordinator_shard>(
                  partition, [this](txn_coordinator_shard& s) { on_loaded(s); },
                  [](txn_coordinator_shard&) {});
          }),
      _markers(std::move(markers)),
      _abort_timer(driver.executor()),
      _expiration_timer(driver.executor()) {
    run_every(_abort_timer, _config.abort_check_interval_ms,
              &txn_manager::abort_timed_out_transactions);
    run_every(_expiration_timer, _config.expiration_check_interval_ms,
              &txn_manager::remove_expired_transactional_ids);
}

txn_manager::~txn_manager() {
    _abort_timer.cancel();
    _expiration_timer.cancel();
}

void txn_manager::run_every(asio::steady_timer& timer, int32_t interval_ms,
                            void (txn_manager::*task)()) {
    timer.expires_after(std::chrono::milliseconds(std::max(1, interval_ms)));
    std::weak_ptr<char> alive = _alive;
    timer.async_wait([this, alive, &timer, interval_ms, task](std::error_code ec) {
        if (ec || alive.expired()) {
            return;
        }
        (this->*task)();
        run_every(timer, interval_ms, task);
    });
}

void txn_manager::remove_expired_transactional_ids() {
    const int64_t now = _wall_clock();
    for (auto& [partition, log] : _logs) {
        auto* s = shard_of(partition);
        if (!s) {
            continue;
        }
        std::vector<coordinator_record> tombstones;
        std::vector<std::string> ids;
        for (auto& [id, m] : s->transactions()) {
            const bool idle = m.state == txn_state::empty ||
                              m.state == txn_state::complete_commit ||
                              m.state == txn_state::complete_abort;
            if (idle && !m.pending && m.txn_last_update_ms + _config.id_expiration_ms <= now) {
                tombstones.push_back({encode_transaction_log_key(id), std::nullopt});
                ids.push_back(id);
            }
        }
        if (ids.empty()) {
            continue;
        }
        // Kafka's TransactionStateManager writes the tombstones and forgets
        // the ids once they are replicated; until then they are Dead.
        std::map<std::string, txn_state> before;
        for (const auto& id : ids) {
            auto& m = s->transactions()[id];
            before[id] = m.state;
            m.state = txn_state::dead;
            m.pending = true;
        }
        if (_runtime.append(partition, tombstones) != error_code::none) {
            for (const auto& [id, state] : before) {
                s->transactions()[id].state = state;
                s->transactions()[id].pending = false;
            }
            continue;
        }
        logging::transactions().info("event=transactional_ids_expired partition={} count={}",
                                     partition, ids.size());
        const int32_t p = partition;
        _runtime.when_replicated(p, [this, p, ids](error_code) {
            if (auto* s = shard_of(p)) {
                for (const auto& id : ids) {
                    auto it = s->transactions().find(id);
                    if (it != s->transactions().end() && it->second.state == txn_state::dead) {
                        s->transactions().erase(it);
                    }
                }
            }
        });
    }
}

void txn_manager::on_elected(int32_t partition, cluster::partition* log) {
    _logs[partition] = log;
    _runtime.on_elected(partition, log);
}

void txn_manager::on_resigned(int32_t partition) {
    _logs.erase(partition);
    _runtime.on_resigned(partition);
}

error_code txn_manager::status_of(const std::string& id) const {
    return _runtime.status(partition_for(id));
}

txn_coordinator_shard* txn_manager::shard_of(int32_t partition) const {
    return static_cast<txn_coordinator_shard*>(_runtime.loaded(partition));
}

void txn_manager::on_loaded(txn_coordinator_shard& s) {
    size_t pending = 0;
    for (auto& [id, m] : s.transactions()) {
        if (m.state == txn_state::prepare_commit || m.state == txn_state::prepare_abort) {
            ++pending;
        }
    }
    logging::transactions().info(
        "event=txn_partition_loaded partition={} transactional_ids={} completing={} "
        "skipped={}",
        s.partition(), s.transactions().size(), pending, s.records_skipped());
    // Finish what a previous coordinator prepared (its markers may be missing).
    std::vector<std::string> ids;
    for (auto& [id, m] : s.transactions()) {
        if (m.state == txn_state::prepare_commit || m.state == txn_state::prepare_abort) {
            ids.push_back(id);
        }
    }
    const int32_t partition = s.partition();
    for (const auto& id : ids) {
        // After the load completes: the runtime marks the partition loaded
        // only once this returns.
        asio::post(_abort_timer.get_executor(),
                   [this, partition, id, alive = std::weak_ptr<char>(_alive)] {
                       if (!alive.expired()) {
                           complete_transaction(partition, id);
                       }
                   });
    }
}

void txn_manager::write_state(int32_t partition, transaction_metadata next, callback cb) {
    auto* s = shard_of(partition);
    if (!s) {
        cb(error_code::not_coordinator);
        return;
    }
    const std::string id = next.transactional_id;
    next.pending = false;
    auto [it, fresh] = s->transactions().try_emplace(id);
    if (fresh) {
        // Not served before it is written: held pending with no state yet.
        it->second = next;
        it->second.state = txn_state::empty;
        it->second.producer_epoch = -1;
    }
    it->second.pending = true;
    std::vector<coordinator_record> records;
    records.push_back({encode_transaction_log_key(id), encode_transaction_log_value(next)});
    auto finish = [this, partition, id, fresh = fresh](error_code ec) {
        auto* s = shard_of(partition);
        if (!s) {
            return error_code::not_coordinator;
        }
        auto* m = s->find(id);
        if (m) {
            m->pending = false;
            if (ec != error_code::none && fresh) {
                s->transactions().erase(id);
            }
        }
        return ec;
    };
    const error_code appended = _runtime.append(partition, records);
    if (appended != error_code::none) {
        cb(write_error(finish(appended)));
        return;
    }
    _runtime.when_replicated(partition, [this, partition, id, next = std::move(next), finish,
                                         cb = std::move(cb)](error_code ec) mutable {
        ec = finish(ec);
        if (ec == error_code::none) {
            if (auto* s = shard_of(partition)) {
                s->transactions()[id] = std::move(next);
            } else {
                ec = error_code::not_coordinator;
            }
        }
        cb(write_error(ec));
    });
}

void txn_manager::init_producer_id(const std::string& id, int32_t txn_timeout_ms,
                                   int64_t expected_producer_id, int16_t expected_epoch,
                                   std::optional<int64_t> fresh_producer_id,
                                   std::function<void(init_pid_result)> cb) {
    init_pid_result out;
    auto fail = [&cb](error_code ec) {
        init_pid_result r;
        r.error = ec;
        cb(r);
    };
    if (txn_timeout_ms <= 0 || txn_timeout_ms > _config.max_timeout_ms) {
        return fail(error_code::invalid_transaction_timeout);
    }
    const int32_t partition = partition_for(id);
    if (auto st = _runtime.status(partition); st != error_code::none) {
        return fail(st);
    }
    auto* s = shard_of(partition);
    transaction_metadata* m = s->find(id);
    if (m && m->state == txn_state::dead) {
        m = nullptr;
    }
    const int64_t now = _wall_clock();
    transaction_metadata next;
    if (!m) {
        if (!fresh_producer_id) {
            out.needs_producer_id = true;
            return cb(out);
        }
        next.transactional_id = id;
        next.producer_id = *fresh_producer_id;
        next.producer_epoch = 0;
    } else {
        if (m->pending || m->is_prepare()) {
            return fail(error_code::concurrent_transactions);
        }
        if (expected_producer_id >= 0) {
            // KIP-360: a producer that knows its id and epoch may only bump
            // its own (or retry the bump it already got).
            const bool current =
                expected_producer_id == m->producer_id && expected_epoch == m->producer_epoch;
            const bool retried = expected_producer_id == m->last_producer_id &&
                                 expected_epoch == m->last_producer_epoch;
            if (!current && !retried) {
                return fail(error_code::producer_fenced);
            }
            if (retried && m->state != txn_state::ongoing) {
                out.producer_id = m->producer_id;
                out.producer_epoch = m->producer_epoch;
                return cb(out);
            }
        }
        if (m->state == txn_state::ongoing) {
            // The old producer's transaction is aborted under a new epoch
            // first; the client retries until it completes.
            fence_and_abort(partition, *m);
            return fail(error_code::concurrent_transactions);
        }
        next = *m;
        next.last_producer_id = m->producer_id;
        next.last_producer_epoch = m->producer_epoch;
        if (m->producer_epoch >= max_producer_epoch) {
            if (!fresh_producer_id) {
                out.needs_producer_id = true;
                return cb(out);
            }
            next.producer_id = *fresh_producer_id;
            next.producer_epoch = 0;
        } else {
            next.producer_epoch = int16_t(m->producer_epoch + 1);
        }
    }
    next.txn_timeout_ms = txn_timeout_ms;
    next.state = txn_state::empty;
    next.partitions.clear();
    next.txn_start_ms = -1;
    next.txn_last_update_ms = now;
    const int64_t pid = next.producer_id;
    const int16_t epoch = next.producer_epoch;
    write_state(partition, std::move(next), [cb = std::move(cb), pid, epoch](error_code ec) {
        init_pid_result r;
        r.error = ec;
        if (ec == error_code::none) {
            r.producer_id = pid;
            r.producer_epoch = epoch;
        }
        cb(r);
    });
}

void txn_manager::add_partitions(const std::string& id, int64_t producer_id, int16_t epoch,
                                 const std::vector<storage::topic_partition>& partitions,
                                 bool verify_only, callback cb) {
    const int32_t partition = partition_for(id);
    if (auto st = _runtime.status(partition); st != error_code::none) {
        return cb(st);
    }
    transaction_metadata* m = shard_of(partition)->find(id);
    if (!m || m->state == txn_state::dead || m->producer_id != producer_id) {
        return cb(error_code::invalid_producer_id_mapping);
    }
    if (m->producer_epoch != epoch) {
        return cb(error_code::producer_fenced);
    }
    if (m->pending || m->is_prepare()) {
        return cb(error_code::concurrent_transactions);
    }
    const bool all_in =
        std::all_of(partitions.begin(), partitions.end(),
                    [m](const storage::topic_partition& tp) { return m->partitions.count(tp); });
    if (verify_only) {
        return cb(m->state == txn_state::ongoing && all_in ? error_code::none
                                                           : error_code::invalid_txn_state);
    }
    if (m->state == txn_state::ongoing && all_in) {
        return cb(error_code::none);
    }
    transaction_metadata next = *m;
    const int64_t now = _wall_clock();
    if (m->state != txn_state::ongoing) {
        next.txn_start_ms = now;
        next.partitions.clear();
    }
    next.state = txn_state::ongoing;
    next.partitions.insert(partitions.begin(), partitions.end());
    next.txn_last_update_ms = now;
    write_state(partition, std::move(next), std::move(cb));
}

void txn_manager::end_txn(const std::string& id, int64_t producer_id, int16_t epoch, bool commit,
                          callback cb) {
    const int32_t partition = partition_for(id);
    if (auto st = _runtime.status(partition); st != error_code::none) {
        return cb(st);
    }
    transaction_metadata* m = shard_of(partition)->find(id);
    if (!m || m->state == txn_state::dead || m->producer_id != producer_id) {
        return cb(error_code::invalid_producer_id_mapping);
    }
    if (m->producer_epoch != epoch) {
        return cb(error_code::producer_fenced);
    }
    if (m->pending) {
        return cb(error_code::concurrent_transactions);
    }
    switch (m->state) {
        case txn_state::ongoing:
            break;
        case txn_state::complete_commit:
            return cb(commit ? error_code::none : error_code::invalid_txn_state);
        case txn_state::complete_abort:
            return cb(commit ? error_code::invalid_txn_state : error_code::none);
        case txn_state::prepare_commit:
            return cb(commit ? error_code::concurrent_transactions : error_code::invalid_txn_state);
        case txn_state::prepare_abort:
            return cb(commit ? error_code::invalid_txn_state : error_code::concurrent_transactions);
        case txn_state::prepare_epoch_fence:
            return cb(error_code::concurrent_transactions);
        case txn_state::empty:
        case txn_state::dead:
            return cb(error_code::invalid_txn_state);
    }
    transaction_metadata next = *m;
    next.state = commit ? txn_state::prepare_commit : txn_state::prepare_abort;
    next.txn_last_update_ms = _wall_clock();
    write_state(partition, std::move(next),
                [this, partition, id, cb = std::move(cb)](error_code ec) {
                    // The client hears back once the decision is durable; the
                    // markers follow (Kafka answers EndTxn the same way).
                    cb(ec);
                    if (ec == error_code::none) {
                        complete_transaction(partition, id);
                    }
                });
}

void txn_manager::fence_and_abort(int32_t partition, transaction_metadata& m) {
    transaction_metadata next = m;
    if (m.producer_epoch < max_producer_epoch) {
        next.last_producer_epoch = m.producer_epoch;
        next.producer_epoch = int16_t(m.producer_epoch + 1);
    }
    next.state = txn_state::prepare_abort;
    next.txn_last_update_ms = _wall_clock();
    const std::string id = m.transactional_id;
    logging::transactions().info(
        "event=txn_aborting transactional_id=\"{}\" producer_id={} epoch={}", id, next.producer_id,
        next.producer_epoch);
    write_state(partition, std::move(next), [this, partition, id](error_code ec) {
        if (ec == error_code::none) {
            complete_transaction(partition, id);
        }
    });
}

void txn_manager::complete_transaction(int32_t partition, const std::string& id) {
    auto* s = shard_of(partition);
    auto log = _logs.find(partition);
    if (!s || log == _logs.end()) {
        return;  // the next coordinator finishes it
    }
    transaction_metadata* m = s->find(id);
    if (!m || !(m->state == txn_state::prepare_commit || m->state == txn_state::prepare_abort)) {
        return;
    }
    txn_marker marker;
    marker.producer_id = m->producer_id;
    marker.producer_epoch = m->producer_epoch;
    marker.commit = m->state == txn_state::prepare_commit;
    marker.coordinator_epoch = log->second->leader_epoch();
    marker.partitions = m->partitions;
    const int64_t pid = m->producer_id;
    const int16_t epoch = m->producer_epoch;
    const txn_state prepared = m->state;
    std::weak_ptr<char> alive = _alive;
    _markers->write(std::move(marker), [this, alive, partition, id, pid, epoch, prepared] {
        if (!alive.expired()) {
            write_complete(partition, id, pid, epoch, prepared, 1);
        }
    });
}

void txn_manager::write_complete(int32_t partition, const std::string& id, int64_t pid,
                                 int16_t epoch, txn_state prepared, int attempt) {
    auto* s = shard_of(partition);
    transaction_metadata* m = s ? s->find(id) : nullptr;
    if (!m || m->producer_id != pid || m->producer_epoch != epoch || m->state != prepared ||
        m->pending) {
        return;
    }
    transaction_metadata next = *m;
    next.state = prepared == txn_state::prepare_commit ? txn_state::complete_commit
                                                       : txn_state::complete_abort;
    next.partitions.clear();
    next.txn_last_update_ms = _wall_clock();
    std::weak_ptr<char> alive = _alive;
    write_state(partition, std::move(next),
                [this, alive, partition, id, pid, epoch, prepared, attempt](error_code ec) {
                    if (alive.expired()) {
                        return;
                    }
                    if (ec == error_code::none) {
                        if (attempt > 1) {
                            logging::transactions().info(
                                "event=txn_complete_written transactional_id=\"{}\" attempts={}",
                                id, attempt);
                        }
                        return;
                    }
                    if (attempt == 1) {
                        logging::transactions().warn(
                            "event=txn_complete_write_failed transactional_id=\"{}\" error={}{}",
                            id, error_name(ec),
                            ec == error_code::coordinator_not_available ? " action=retry" : "");
                    }
                    // NOT_COORDINATOR and the like: the next coordinator loads the
                    // Prepare* state and completes it. COORDINATOR_NOT_AVAILABLE (the ISR
                    // did not take the write in time) is retried while this coordinator
                    // holds the partition, as Kafka's TransactionMarkerChannelManager
                    // retries it: until then every request of the producer is answered
                    // CONCURRENT_TRANSACTIONS.
                    if (ec != error_code::coordinator_not_available) {
                        return;
                    }
                    auto timer = std::make_shared<asio::steady_timer>(_abort_timer.get_executor());
                    timer->expires_after(std::chrono::milliseconds(complete_retry_backoff_ms));
                    timer->async_wait([this, alive, timer, partition, id, pid, epoch, prepared,
                                       attempt](std::error_code wait_ec) {
                        if (!wait_ec && !alive.expired()) {
                            write_complete(partition, id, pid, epoch, prepared, attempt + 1);
                        }
                    });
                });
}

void txn_manager::abort_timed_out_transactions() {
    const int64_t now = _wall_clock();
    for (auto& [partition, log] : _logs) {
        auto* s = shard_of(partition);
        if (!s) {
            continue;
        }
        std::vector<std::string> expired;
        for (auto& [id, m] : s->transactions()) {
            if (m.state == txn_state::ongoing && !m.pending &&
                m.txn_start_ms + m.txn_timeout_ms < now) {
                expired.push_back(id);
            }
        }
        for (const auto& id : expired) {
            if (auto* m = s->find(id)) {
                logging::transactions().info(
                    "event=txn_timed_out transactional_id=\"{}\" timeout_ms={}", id,
                    m->txn_timeout_ms);
                fence_and_abort(partition, *m);
            }
        }
    }
}

std::vector<txn_listing> txn_manager::list(const std::vector<txn_state>& states,
                                           const std::vector<int64_t>& producer_ids) const {
    std::vector<txn_listing> out;
    for (const auto& [partition, log] : _logs) {
        auto* s = shard_of(partition);
        if (!s) {
            continue;
        }
        for (auto& [id, m] : s->transactions()) {
            if (m.state == txn_state::dead || m.producer_epoch < 0) {
                continue;
            }
            if (!states.empty() &&
                std::find(states.begin(), states.end(), m.state) == states.end()) {
                continue;
            }
            if (!producer_ids.empty() && std::find(producer_ids.begin(), producer_ids.end(),
                                                   m.producer_id) == producer_ids.end()) {
                continue;
            }
            out.push_back({id, m.producer_id, m.state, m.txn_start_ms});
        }
    }
    return out;
}

std::pair<error_code, transaction_metadata> txn_manager::describe(const std::string& id) const {
    const int32_t partition = partition_for(id);
    if (auto st = _runtime.status(partition); st != error_code::none) {
        return {st, {}};
    }
    auto* m = shard_of(partition)->find(id);
    if (!m || m->state == txn_state::dead || m->producer_epoch < 0) {
        return {error_code::transactional_id_not_found, {}};
    }
    return {error_code::none, *m};
}

}  // namespace samsa::coordinator::txn
