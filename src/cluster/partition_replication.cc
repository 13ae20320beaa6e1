// partition: the replication half (docs/architecture.md, "Replication", the seeds' ISR and high
// watermark rules with Kafka's later leader-epoch fixes). Part of the
// partition class (partition.h); runs on the partition's shard.
#include <algorithm>
#include <atomic>
#include <utility>

#include "cluster/partition.h"
#include "common/bytes.h"

namespace samsa::cluster {

std::vector<node_id> partition::maximal_isr() const {
    std::vector<node_id> out = _isr;
    for (node_id r : _pending_isr_additions) {
        if (std::find(out.begin(), out.end(), r) == out.end()) {
            out.push_back(r);
        }
    }
    return out;
}

// The high watermark is the smallest log end offset over the maximal ISR (the
// leader's own included); a follower whose position this leader has not yet
// seen in its epoch holds it back. It never moves back.
void partition::maybe_advance_high_watermark() {
    if (!is_leader()) {
        return;
    }
    // Over the ISR and then the pending additions, without building the
    // maximal ISR: this runs on every append and follower fetch. (A replica
    // in both counts twice, to the same effect.)
    int64_t hw = _log->log_end_offset();
    auto hold_back = [&](node_id r) {
        if (r == _local_node_id) {
            return;
        }
        auto it = _followers.find(r);
        const int64_t leo = it == _followers.end() ? -1 : it->second.log_end_offset;
        hw = std::min(hw, leo);
    };
    std::for_each(_isr.begin(), _isr.end(), hold_back);
    std::for_each(_pending_isr_additions.begin(), _pending_isr_additions.end(), hold_back);
    if (hw > _log->high_watermark()) {
        _log->update_high_watermark(hw);
    }
    if (_replication_waiters.empty()) {
        return;
    }
    const int64_t now_hw = _log->high_watermark();
    const bool enough = int32_t(_isr.size()) >= _config.min_insync_replicas;
    std::vector<std::function<void(error_code)>> done;
    auto it =
        std::remove_if(_replication_waiters.begin(), _replication_waiters.end(), [&](auto& w) {
            if (w.first > now_hw) {
                return false;
            }
            done.push_back(std::move(w.second));
            return true;
        });
    _replication_waiters.erase(it, _replication_waiters.end());
    for (auto& d : done) {
        d(enough ? error_code::none : error_code::not_enough_replicas_after_append);
    }
}

void partition::fail_replication_waiters(error_code code) {
    auto waiters = std::move(_replication_waiters);
    _replication_waiters.clear();
    for (auto& [offset, done] : waiters) {
        done(code);
    }
}

namespace {
std::atomic<bool> g_unsafe_ack_at_log_end{false};
}  // namespace

void partition::set_unsafe_ack_at_log_end(bool on) {
    g_unsafe_ack_at_log_end = on;
}

bool partition::unsafe_ack_at_log_end() {
    return g_unsafe_ack_at_log_end.load(std::memory_order_relaxed);
}

void partition::when_replicated(kafka_offset end_offset, std::function<void(error_code)> done) {
    if (!is_leader()) {
        done(error_code::not_leader_or_follower);
        return;
    }
    if (unsafe_ack_at_log_end()) {
        done(error_code::none);  // the bug on purpose: see set_unsafe_ack_at_log_end
        return;
    }
    _replication_waiters.emplace_back(end_offset.value(), std::move(done));
    maybe_advance_high_watermark();
}

fetch_outcome partition::read_for_follower(node_id replica, kafka_offset fetch_offset,
                                           int64_t max_bytes, bool min_one_message,
                                           samsa::leader_epoch current,
                                           samsa::leader_epoch last_fetched, int64_t now_ms) {
    const int64_t offset = fetch_offset.value();
    const int32_t current_leader_epoch = current.value();
    const int32_t last_fetched_epoch = last_fetched.value();
    fetch_outcome out;
    out.log_start_offset = _log->log_start_offset();
    if (!is_leader() || !contains(_replicas, replica)) {
        out.high_watermark = high_watermark();
        out.last_stable_offset = last_stable_offset();
        out.error = error_code::not_leader_or_follower;
        return out;
    }
    if (auto ec = check_leader_epoch(current_leader_epoch); ec != error_code::none) {
        out.high_watermark = high_watermark();
        out.last_stable_offset = last_stable_offset();
        out.error = ec;
        return out;
    }
    const int64_t leo = _log->log_end_offset();
    // The follower's log must end on ours: its last epoch must end where ours
    // ends for that epoch, at or after its fetch offset. Otherwise it
    // truncates to the end of the largest common epoch first (KIP-101/279).
    if (last_fetched_epoch >= 0) {
        auto e = _log->leader_epochs().end_offset_for(last_fetched_epoch, leo);
        if (e.epoch != last_fetched_epoch || e.start_offset < offset) {
            out.diverging_epoch =
                epoch_end_offset{samsa::leader_epoch{e.epoch}, kafka_offset{e.start_offset}};
            out.high_watermark = high_watermark();
            out.last_stable_offset = last_stable_offset();
            return out;
        }
    }
    // Kafka's Replica.updateFetchState: caught up when the fetch reaches the
    // leader's LEO now, or the LEO the leader had at the previous fetch.
    auto& f = _followers[replica];
    if (offset >= leo) {
        f.last_caught_up_ms = now_ms;
    } else if (f.last_fetch_leader_leo >= 0 && offset >= f.last_fetch_leader_leo) {
        f.last_caught_up_ms = std::max(f.last_caught_up_ms, f.last_fetch_ms);
    }
    f.log_end_offset = offset;
    f.last_fetch_leader_leo = leo;
    f.last_fetch_ms = now_ms;
    maybe_expand_isr(replica, now_ms);
    maybe_advance_high_watermark();

    out.high_watermark = high_watermark();
    out.last_stable_offset = last_stable_offset();
    auto r = _log->read(kafka_offset{offset}, max_bytes, std::nullopt, min_one_message);
    if (!r) {
        out.error = r.err();
        return out;
    }
    out.records = std::move(r->records);
    out.log_start_offset = r->log_start_offset;
    return out;
}

void partition::set_replication(int64_t replica_lag_time_max_ms, isr_proposer proposer) {
    _replica_lag_time_max_ms = replica_lag_time_max_ms;
    _isr_proposer = std::move(proposer);
}

bool partition::isr_change_in_flight(int64_t now_ms) const {
    // One proposal at a time, until the image moves the partition epoch or
    // the controller answers; an unanswered one is retried after a while.
    constexpr int64_t k_retry_ms = 5000;
    return _isr_change_sent_ms >= 0 && _isr_change_partition_epoch == _partition_epoch &&
           now_ms - _isr_change_sent_ms < k_retry_ms;
}

void partition::isr_change_failed(error_code code, int64_t now_ms) {
    // Only these two say the proposal was not applied by any controller, past
    // or future (Kafka's Partition.handleAlterPartitionError): after any other
    // failure it may have been committed, and its additions keep holding the
    // high watermark until the partition epoch moves.
    if (code == error_code::ineligible_replica || code == error_code::operation_not_attempted) {
        _pending_isr_additions.clear();
        maybe_advance_high_watermark();
    }
    // A refused change (e.g. INELIGIBLE_REPLICA while the follower is still
    // fenced) is not proposed again on every fetch.
    constexpr int64_t k_backoff_ms = 500;
    _isr_change_sent_ms = -1;
    _isr_change_retry_ms = now_ms + k_backoff_ms;
}

void partition::propose_isr(std::vector<node_id> isr, int64_t now_ms) {
    if (!_isr_proposer || isr_change_in_flight(now_ms) || now_ms < _isr_change_retry_ms) {
        return;
    }
    for (node_id r : isr) {
        if (std::find(_isr.begin(), _isr.end(), r) == _isr.end() &&
            std::find(_pending_isr_additions.begin(), _pending_isr_additions.end(), r) ==
                _pending_isr_additions.end()) {
            _pending_isr_additions.push_back(r);
        }
    }
    _isr_change_sent_ms = now_ms;
    _isr_change_partition_epoch = _partition_epoch;
    _isr_proposer({_tp, _topic_id, _leader_epoch, _partition_epoch, std::move(isr)});
}

void partition::maybe_expand_isr(node_id replica_id, int64_t now_ms) {
    if (contains(_isr, replica_id)) {
        return;
    }
    const auto& f = _followers[replica_id];
    if (f.log_end_offset < high_watermark() || f.log_end_offset < _leader_epoch_start_offset) {
        return;
    }
    // The additions still pending stay in: the controller may have
    // committed them already.
    auto isr = maximal_isr();
    if (!contains(isr, replica_id)) {
        isr.push_back(replica_id);
    }
    propose_isr(std::move(isr), now_ms);
}

void partition::maybe_shrink_isr(int64_t now_ms) {
    // The checks run every replica.lag.time.max.ms / 2. One that comes more
    // than replica.lag.time.max.ms after the last means this broker did not
    // run meanwhile (paused, stalled, its clock jumped): its followers could
    // not fetch from it, so their silence says nothing about them. They get
    // one more round, as they fetch the moment the leader runs again, rather
    // than the ISR shrinking and growing back milliseconds later, failing
    // the acks=all produces in between with NOT_ENOUGH_REPLICAS (a producer
    // whose next request then passes finds a gap in its sequence, and
    // librdkafka's recovery from that writes duplicates). Kafka shrinks there.
    const int64_t last = std::exchange(_last_isr_check_ms, now_ms);
    if (last >= 0 && now_ms - last > _replica_lag_time_max_ms) {
        return;
    }
    if (!is_leader()) {
        return;
    }
    if (!_pending_isr_additions.empty()) {
        // An expansion without a definite answer is sent again (Kafka retries
        // an AlterPartition until it has one): the controller commits it, or
        // refuses a replica that is gone and so stops it holding the high
        // watermark.
        if (!isr_change_in_flight(now_ms)) {
            propose_isr(maximal_isr(), now_ms);
        }
        return;
    }
    std::vector<node_id> keep;
    for (node_id r : _isr) {
        if (r == _local_node_id) {
            keep.push_back(r);
            continue;
        }
        auto it = _followers.find(r);
        const int64_t caught_up = it == _followers.end() ? -1 : it->second.last_caught_up_ms;
        if (caught_up >= 0 && now_ms - caught_up <= _replica_lag_time_max_ms) {
            keep.push_back(r);
        }
    }
    if (keep.size() != _isr.size()) {
        propose_isr(std::move(keep), now_ms);
    }
}

status partition::append_as_follower(bytes_view batches, int64_t leader_high_watermark,
                                     int64_t now_ms) {
    if (is_leader()) {
        return error(error_code::not_leader_or_follower, "a leader does not follow");
    }
    // A fetch answer may end inside a batch (the leader cuts at the byte
    // limit, as Kafka does): only whole batches are appended, the rest comes
    // again with the next fetch.
    size_t whole = 0;
    while (batches.size() - whole >= 12) {
        const uint32_t length = load_be32(batches.data() + whole + 8);
        if (batches.size() - whole - 12 < length) {
            break;
        }
        whole += 12 + length;
    }
    batches = batches.first(whole);
    if (!batches.empty()) {
        auto appended = _log->append_as_follower(batches, now_ms);
        if (!appended) {
            return appended.err();
        }
    }
    _log->update_high_watermark(std::min(leader_high_watermark, _log->log_end_offset()));
    return {};
}

status partition::truncate_to(kafka_offset offset, int64_t now_ms) {
    if (is_leader()) {
        return error(error_code::not_leader_or_follower, "a leader does not truncate");
    }
    return _log->truncate_to(offset.value(), now_ms);
}

result<int64_t> partition::truncate_to_diverging_epoch(epoch_end_offset diverging, int64_t now_ms) {
    const int32_t epoch = diverging.epoch.value();
    const int64_t end_offset = diverging.end_offset.value();
    const int64_t leo = _log->log_end_offset();
    auto mine = _log->leader_epochs().end_offset_for(epoch, leo);
    // Our end of the leader's epoch (or, when we never had that epoch, of our
    // largest one below it: the next fetch compares again from there).
    const int64_t target = mine.epoch < 0 ? std::min(end_offset, _log->log_start_offset())
                                          : std::min(end_offset, mine.start_offset);
    if (auto st = truncate_to(kafka_offset{target}, now_ms); !st) {
        return st.err();
    }
    return _log->log_end_offset();
}

samsa::leader_epoch partition::last_log_epoch() const {
    return samsa::leader_epoch{_log->leader_epochs().latest_epoch().value_or(-1)};
}

}  // namespace samsa::cluster
