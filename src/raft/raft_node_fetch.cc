// raft_node: pull-based replication (Fetch, KIP-595) and snapshot transfer
// (FetchSnapshot, KIP-630), on both sides.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "raft/raft_node.h"

namespace samsa::raft {

namespace {

// Where a follower's (fetch offset, last fetched epoch) stands against the
// leader's log.
struct fetch_position {
    enum kind_t { valid, diverging, snapshot } kind = valid;
    offset_and_epoch at;  // diverging: the leader's end of that epoch; snapshot: its id
};

fetch_position validate_fetch(const raft_log& log, raft_offset offset, raft_epoch last_epoch) {
    auto snap = log.latest_snapshot();
    if (offset < log.start_offset()) {
        // Below the log start only the snapshot has it. (A log start above 0
        // always has its snapshot.)
        return {fetch_position::snapshot, snap ? snap->id : offset_and_epoch{}};
    }
    if (offset == raft_offset{0}) {
        return {};  // an empty follower: nothing to compare
    }
    if (snap && offset == log.start_offset() && last_epoch == snap->id.epoch) {
        return {};
    }
    auto end = log.end_offset_for_epoch(last_epoch);
    if (!end) {
        // The follower's last epoch is older than anything we hold.
        if (snap) {
            return {fetch_position::snapshot, snap->id};
        }
        return {fetch_position::diverging, {log.start_offset(), raft_epoch{0}}};
    }
    if (end->epoch != last_epoch || end->offset < offset) {
        return {fetch_position::diverging, *end};
    }
    return {};
}

}  // namespace

error_code raft_node::leader_epoch_error(raft_epoch requested) const {
    if (requested < epoch()) {
        return error_code::fenced_leader_epoch;
    }
    if (requested > epoch()) {
        return error_code::unknown_leader_epoch;
    }
    return is_leader() ? error_code::none : error_code::not_leader_or_follower;
}

// --- leader side -----------------------------------------------------------

void raft_node::poll_leader() {
    auto& l = _quorum.as<leader_state>();
    if (_flush_deadline && _now >= *_flush_deadline) {
        flush_leader_log();
        if (!is_leader()) {
            return;
        }
    }
    if (_now >= l.check_quorum_deadline(_config.fetch_timeout * 3 / 2)) {
        logging::raft().warn("event=raft_check_quorum_failed node={} epoch={}", id(), l.epoch());
        become_resigned(l.preferred_successors());
        return;
    }
    if (_now >= l.next_begin_quorum_epoch()) {
        send_begin_quorum_epoch();
    }
    answer_parked_fetches(true);
}

void raft_node::flush_leader_log() {
    _flush_deadline.reset();
    if (auto st = _log.flush(); !st) {
        fail(st.err());
        return;
    }
    // Only flushed entries count for the leader: one it loses in a crash
    // must not have been counted toward the majority.
    if (_quorum.as<leader_state>().update_local(_log.durable_end_offset(), _now)) {
        on_leader_high_watermark();
    }
}

void raft_node::on_leader_high_watermark() {
    auto hw = _quorum.as<leader_state>().high_watermark();
    update_high_watermark(*hw);
    logging::raft().trace("event=raft_high_watermark node={} epoch={} hw={}", id(), epoch(), *hw);
    // Followers parked at the log end learn the new high watermark now.
    _answer_parked = !_parked.empty();
}

void raft_node::answer_parked_fetches(bool only_expired) {
    // Only answering all of them settles a pending "answer the parked": the
    // expired ones alone would leave a follower waiting out its max wait for
    // the high watermark this very poll moved (a flush after append.linger.ms).
    if (!only_expired) {
        _answer_parked = false;
    }
    std::vector<parked_fetch> due;
    std::erase_if(_parked, [&](parked_fetch& p) {
        if (only_expired && _now < p.deadline) {
            return false;
        }
        due.push_back(std::move(p));
        return true;
    });
    for (auto& p : due) {
        on_fetch_request(p.from, p.request, false);
    }
}

void raft_node::step_down_for(raft_epoch requested) {
    // Raft's rule, which Kafka's Fetch handling leaves out: a higher epoch
    // seen anywhere ends this one. Without it a replica that learned an epoch
    // no leader won (an observer, from a candidate that then lost) asks this
    // leader forever and is told an epoch it can never go back to.
    if (requested > epoch() && is_leader()) {
        logging::raft().info("event=raft_leader_saw_higher_epoch node={} epoch={} seen={}", id(),
                             epoch(), requested);
        observe({no_node, requested});
    }
}

void raft_node::on_fetch_request(node_id from, const fetch_request& r, bool may_park) {
    step_down_for(r.current_leader_epoch);
    fetch_response out;
    out.correlation_id = r.correlation_id;
    out.error = leader_epoch_error(r.current_leader_epoch);
    out.current_leader = _quorum.leader();
    if (out.error != error_code::none) {
        send(from, std::move(out));
        return;
    }
    auto& l = _quorum.as<leader_state>();
    fetch_position pos = validate_fetch(_log, r.fetch_offset, r.last_fetched_epoch);
    if (pos.kind == fetch_position::diverging) {
        l.touch(from, _now);
        out.diverging_epoch = pos.at;
    } else if (pos.kind == fetch_position::snapshot) {
        l.touch(from, _now);
        out.snapshot_id = pos.at;
    } else {
        bool hw_moved = l.update_replica(from, r.fetch_offset, _log.end_offset(), _now);
        if (hw_moved) {
            on_leader_high_watermark();
        }
        if (r.fetch_offset < _log.end_offset()) {
            int64_t max = std::min(r.max_bytes, _config.fetch_max_bytes);
            auto batches = _log.read(r.fetch_offset, max);
            if (!batches) {
                fail(batches.err());
                return;
            }
            out.records = std::move(*batches);
        } else if (may_park && !hw_moved && r.max_wait > raft_ms{0}) {
            // Nothing to send: hold it until there is (or the wait is over).
            // (Unless this very fetch moved the high watermark: the follower
            // needs to hear it.)
            std::erase_if(_parked, [&](const parked_fetch& p) { return p.from == from; });
            _parked.push_back({from, r, _now + std::min(r.max_wait, _config.fetch_max_wait)});
            return;
        }
    }
    out.high_watermark = _high_watermark;
    out.log_start_offset = _log.start_offset();
    send(from, std::move(out));
}

void raft_node::on_fetch_snapshot_request(node_id from, const fetch_snapshot_request& r) {
    step_down_for(r.current_leader_epoch);
    fetch_snapshot_response out;
    out.correlation_id = r.correlation_id;
    out.error = leader_epoch_error(r.current_leader_epoch);
    out.current_leader = _quorum.leader();
    out.snapshot_id = r.snapshot_id;
    if (out.error == error_code::none) {
        _quorum.as<leader_state>().touch(from, _now);
        auto s = _log.read_snapshot(r.snapshot_id);
        if (!s) {
            out.error = error_code::snapshot_not_found;
        } else {
            const bytes& data = *s->data;
            out.size = int64_t(data.size());
            if (r.position < 0 || r.position > out.size) {
                out.error = error_code::position_out_of_range;
            } else {
                int64_t max = std::min(r.max_bytes, _config.fetch_snapshot_max_bytes);
                int64_t end = std::min(out.size, r.position + std::max<int64_t>(max, 1));
                out.position = r.position;
                out.chunk.assign(data.begin() + r.position, data.begin() + end);
            }
        }
    }
    send(from, std::move(out));
}

// --- follower side ---------------------------------------------------------

bool raft_node::maybe_send_fetch(node_id to) {
    if (to == id() || !to.is_valid()) {
        return false;
    }
    if (_fetch) {
        if (_now < _fetch->sent + _config.request_timeout) {
            return false;
        }
        _fetch.reset();  // no answer: taken as lost
    }
    if (_now < _next_fetch_at) {
        return false;
    }
    int32_t corr = next_correlation();
    auto* f = _quorum.get_if<follower_state>();
    if (f && f->snapshot()) {
        const auto& t = *f->snapshot();
        _fetch = in_flight_fetch{corr, to, _now, true};
        send(to, fetch_snapshot_request{corr, id(), epoch(), t.id, int64_t(t.data.size()),
                                        _config.fetch_snapshot_max_bytes});
        return true;
    }
    _fetch = in_flight_fetch{corr, to, _now, false};
    send(to, fetch_request{corr, id(), epoch(), _log.end_offset(), _log.last_epoch(),
                           _config.fetch_max_bytes, _config.fetch_max_wait});
    return true;
}

void raft_node::on_fetch_response(node_id from, const fetch_response& r) {
    if (!_fetch || _fetch->correlation_id != r.correlation_id || _fetch->to != from ||
        _fetch->snapshot) {
        return;  // not the answer to our outstanding Fetch
    }
    _fetch.reset();
    epoch_check c = observe(r.current_leader);
    if (c != epoch_check::current) {
        return;  // a new role fetches afresh
    }
    if (r.error != error_code::none) {
        auto* f = _quorum.get_if<follower_state>();
        if (f && f->leader() == from && r.error == error_code::not_leader_or_follower) {
            f->leader_resigned();
        }
        _next_fetch_at = _now + _config.retry_backoff;
        return;
    }
    if (r.current_leader.leader != from) {
        return;
    }
    if (auto* p = _quorum.get_if<prospective_state>(); p && p->leader() == from) {
        // The leader was only out of reach for a while.
        if (!transition([&] { return _quorum.to_follower(r.current_leader.epoch, from, _now); })) {
            return;
        }
    }
    auto* f = _quorum.get_if<follower_state>();
    if (f == nullptr || f->leader() != from) {
        return;
    }
    f->fetched(_now, _config.fetch_timeout);
    if (r.diverging_epoch) {
        truncate_diverging(*r.diverging_epoch);
        return;
    }
    if (r.snapshot_id) {
        logging::raft().info(
            "event=raft_fetch_snapshot node={} snapshot_offset={} snapshot_epoch={}", id(),
            r.snapshot_id->offset, r.snapshot_id->epoch);
        f->snapshot() = snapshot_transfer{*r.snapshot_id, {}};
        return;
    }
    if (!r.records.empty()) {
        if (r.records.front().base_offset != _log.end_offset()) {
            return;
        }
        if (auto st = _log.append_as_follower(r.records); !st) {
            fail(st.err());
            return;
        }
        // Durable before the next Fetch reports the new end to the leader.
        if (auto st = _log.flush(); !st) {
            fail(st.err());
            return;
        }
    }
    if (r.high_watermark) {
        // Our log matches the leader's up to its end now.
        update_high_watermark(std::min(*r.high_watermark, _log.end_offset()));
    }
}

bool raft_node::truncate_diverging(offset_and_epoch diverging) {
    // Keep what both logs have: up to the end of the largest common epoch.
    auto mine = _log.end_offset_for_epoch(diverging.epoch);
    raft_offset to = std::min(diverging.offset, mine ? mine->offset : _log.start_offset());
    to = std::max(to, _log.start_offset());
    if (_high_watermark && to < *_high_watermark) {
        fail(error{error_code::unknown_server_error,
                   fmt::format("asked to truncate to {} below the high watermark {}", to,
                               *_high_watermark)});
        return false;
    }
    logging::raft().info("event=raft_truncate node={} epoch={} from={} to={} diverging_epoch={}",
                         id(), epoch(), _log.end_offset(), to, diverging.epoch);
    if (auto st = _log.truncate_to(to); !st) {
        fail(st.err());
        return false;
    }
    return true;
}

void raft_node::on_fetch_snapshot_response(node_id from, const fetch_snapshot_response& r) {
    if (!_fetch || _fetch->correlation_id != r.correlation_id || _fetch->to != from ||
        !_fetch->snapshot) {
        return;
    }
    _fetch.reset();
    if (observe(r.current_leader) != epoch_check::current) {
        return;
    }
    auto* f = _quorum.get_if<follower_state>();
    if (f == nullptr || f->leader() != from || !f->snapshot()) {
        return;
    }
    if (r.error != error_code::none) {
        if (r.error == error_code::snapshot_not_found ||
            r.error == error_code::position_out_of_range) {
            // The leader moved on to a newer snapshot: Fetch says which.
            f->snapshot().reset();
        }
        _next_fetch_at = _now + _config.retry_backoff;
        return;
    }
    f->fetched(_now, _config.fetch_timeout);
    auto& t = *f->snapshot();
    if (r.snapshot_id != t.id || r.position != int64_t(t.data.size())) {
        return;
    }
    t.data.insert(t.data.end(), r.chunk.begin(), r.chunk.end());
    if (int64_t(t.data.size()) >= r.size) {
        install_snapshot(t);
        f->snapshot().reset();
    }
}

void raft_node::install_snapshot(snapshot_transfer& t) {
    raft_snapshot s{t.id, std::make_shared<const bytes>(std::move(t.data))};
    if (auto st = _log.store_snapshot(s); !st) {
        fail(st.err());
        return;
    }
    auto truncated = _log.truncate_to_latest_snapshot();
    if (!truncated) {
        fail(truncated.err());
        return;
    }
    logging::raft().info(
        "event=raft_snapshot_installed node={} snapshot_offset={} snapshot_epoch={} "
        "log_truncated={}",
        id(), s.id.offset, s.id.epoch, *truncated);
    // A leader snapshots only committed offsets.
    update_high_watermark(s.id.offset);
    if (*truncated && _next_to_apply < s.id.offset) {
        _listener.handle_snapshot(s);
        _next_to_apply = s.id.offset;
    }
}

}  // namespace samsa::raft
