#include "raft/raft_node.h"
#include "common/logging/loggers.h"
#include "raft/request_checks.h"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace samsa::raft {

namespace {

template <typename... F>
struct overloaded : F... {
    using F::operator()...;
};
template <typename... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace

raft_node::raft_node(raft_config config, raft_log& log, quorum_state_store& store,
                     raft_transport& transport, raft_listener& listener, random_source& random)
    : _config(std::move(config)),
      _log(log),
      _transport(transport),
      _listener(listener),
      _random(random),
      _quorum(_config, store, random) {
    // A restarted node must not take a late answer to its previous
    // incarnation's request for the answer to its own.
    _next_correlation = int32_t(_random.uniform(0, int64_t(1) << 30));
}

status raft_node::start(raft_time now) {
    _now = now;
    if (_config.voters.empty()) {
        // Nobody could ever be elected (and an observer would have no voter
        // to ask): refuse to start rather than run leaderless.
        _failure = error(error_code::invalid_config, "the quorum has no voters");
        return *_failure;
    }
    if (auto st = _quorum.initialize(_log.last_epoch(), now); !st) {
        _failure = st.err();
        return st;
    }
    logging::raft().info(
        "event=raft_start node={} role={} epoch={} leader={} log_start={} log_end={}", id(),
        role_name(role()), epoch(), leader().leader, _log.start_offset(), _log.end_offset());
    // Everything up to the latest snapshot is committed; the state machine
    // starts from there rather than replaying the log from its start.
    if (auto s = _log.latest_snapshot()) {
        _high_watermark = s->id.offset;
        _listener.handle_snapshot(*s);
        _next_to_apply = s->id.offset;
    } else {
        _next_to_apply = _log.start_offset();
    }
    notify_leader_change();
    return {};
}

void raft_node::handle(node_id from, const raft_message& message, raft_time now) {
    if (_failure) {
        return;
    }
    _now = std::max(_now, now);
    // Kafka checks a BeginQuorumEpoch's or EndQuorumEpoch's epoch first: an
    // older one is FENCED_LEADER_EPOCH whoever sent it (its Raft client's
    // validateVoterOnlyRequest). That answer changes nothing here, so it
    // comes before the checks that guard what a request could change.
    const bool stale_leader_request = std::visit(
        overloaded{
            [&](const begin_quorum_epoch_request& r) { return r.leader.epoch < epoch(); },
            [&](const end_quorum_epoch_request& r) { return r.leader.epoch < epoch(); },
            [](const auto&) { return false; },
        },
        message);
    if (auto why = stale_leader_request ? std::nullopt : refuse(_config, from, message)) {
        logging::raft().warn(
            "event=raft_message_refused node={} from={} message=\"{}\" error={} "
            "reason=\"{}\"",
            id(), from, describe(message), error_name(why->code), why->reason);
        if (is_request(message)) {
            send(from, error_response(message, why->code, _quorum.leader()));
        }
        return;
    }
    std::visit(
        overloaded{
            [&](const vote_request& r) { on_vote_request(from, r); },
            [&](const vote_response& r) { on_vote_response(from, r); },
            [&](const begin_quorum_epoch_request& r) { on_begin_quorum_epoch_request(from, r); },
            [&](const begin_quorum_epoch_response& r) { on_begin_quorum_epoch_response(from, r); },
            [&](const end_quorum_epoch_request& r) { on_end_quorum_epoch_request(from, r); },
            [&](const end_quorum_epoch_response& r) { on_end_quorum_epoch_response(from, r); },
            [&](const fetch_request& r) { on_fetch_request(from, r, true); },
            [&](const fetch_response& r) { on_fetch_response(from, r); },
            [&](const fetch_snapshot_request& r) { on_fetch_snapshot_request(from, r); },
            [&](const fetch_snapshot_response& r) { on_fetch_snapshot_response(from, r); },
        },
        message);
    if (_answer_parked) {
        answer_parked_fetches(false);
    }
    deliver();
}

raft_time raft_node::poll(raft_time now) {
    if (_failure) {
        return raft_time::max();
    }
    _now = std::max(_now, now);
    switch (_quorum.kind()) {
        case role_kind::unattached:
            if (!_quorum.is_voter()) {
                // An observer asks the voters in turn, from a random one: an
                // answer names the leader, and a voter that does not answer
                // (down, cut off) costs one request timeout per round.
                if (_probe_index < 0) {
                    _probe_index = _random.uniform(0, int64_t(_config.voters.size()));
                }
                if (maybe_send_fetch(
                        _config.voters[size_t(_probe_index) % _config.voters.size()])) {
                    ++_probe_index;
                }
            } else if (_quorum.as<unattached_state>().election_timed_out(_now)) {
                become_prospective();
            }
            break;
        case role_kind::voted:
            if (_quorum.as<voted_state>().election_timed_out(_now)) {
                become_prospective();
            }
            break;
        case role_kind::prospective: {
            auto& p = _quorum.as<prospective_state>();
            if (_now >= p.round_deadline()) {
                _quorum.new_prospective_round(_now);
                start_pre_vote_round();
            } else if (p.leader().is_valid()) {
                maybe_send_fetch(p.leader());
            }
            break;
        }
        case role_kind::candidate:
            if (_now >= _quorum.as<candidate_state>().election_deadline()) {
                become_prospective();
            }
            break;
        case role_kind::leader:
            poll_leader();
            break;
        case role_kind::follower: {
            auto& f = _quorum.as<follower_state>();
            if (f.fetch_timed_out(_now)) {
                logging::raft().info("event=raft_fetch_timeout node={} epoch={} leader={}", id(),
                                     f.epoch(), f.leader());
                if (_quorum.is_voter()) {
                    become_prospective();
                } else {
                    transition([&] { return _quorum.to_unattached(f.epoch(), _now); });
                }
            } else {
                maybe_send_fetch(f.leader());
            }
            break;
        }
        case role_kind::resigned: {
            auto& r = _quorum.as<resigned_state>();
            if (_now >= r.election_deadline()) {
                become_prospective();
            } else if (!r.unacknowledged().empty() && _now >= r.next_end_quorum_epoch()) {
                send_end_quorum_epoch();
            }
            break;
        }
    }
    if (_answer_parked) {
        answer_parked_fetches(false);
    }
    deliver();
    return _failure ? raft_time::max() : next_deadline();
}

raft_time raft_node::next_deadline() const {
    raft_time next = raft_time::max();
    auto at = [&](raft_time t) { next = std::min(next, t); };
    auto fetch_timer = [&] {
        if (_fetch) {
            at(_fetch->sent + _config.request_timeout);
        } else {
            at(std::max(_now, _next_fetch_at));
        }
    };
    switch (_quorum.kind()) {
        case role_kind::unattached:
            if (_quorum.is_voter()) {
                at(_quorum.as<unattached_state>().election_deadline());
            } else {
                fetch_timer();
            }
            break;
        case role_kind::voted:
            at(_quorum.as<voted_state>().election_deadline());
            break;
        case role_kind::prospective: {
            const auto& p = _quorum.as<prospective_state>();
            at(p.round_deadline());
            if (p.leader().is_valid()) {
                fetch_timer();
            }
            break;
        }
        case role_kind::candidate:
            at(_quorum.as<candidate_state>().election_deadline());
            break;
        case role_kind::leader: {
            const auto& l = _quorum.as<leader_state>();
            if (_flush_deadline) {
                at(*_flush_deadline);
            }
            at(l.check_quorum_deadline(_config.fetch_timeout * 3 / 2));
            at(l.next_begin_quorum_epoch());
            for (const auto& p : _parked) {
                at(p.deadline);
            }
            break;
        }
        case role_kind::follower:
            at(_quorum.as<follower_state>().fetch_deadline());
            fetch_timer();
            break;
        case role_kind::resigned: {
            const auto& r = _quorum.as<resigned_state>();
            at(r.election_deadline());
            if (!r.unacknowledged().empty()) {
                at(r.next_end_quorum_epoch());
            }
            break;
        }
    }
    return next;
}

bool raft_node::transition(const std::function<status()>& t) {
    bool was_leader = _quorum.is(role_kind::leader);
    if (status st = t(); !st) {
        fail(st.err());
        return false;
    }
    after_transition(was_leader);
    return true;
}

void raft_node::after_transition(bool was_leader) {
    auto l = _quorum.leader();
    logging::raft().debug("event=raft_role node={} role={} epoch={} leader={} now={}", id(),
                          role_name(role()), l.epoch, l.leader, _now);
    // Answers to requests of the previous role are of no use to the new one.
    _fetch.reset();
    _next_fetch_at = _now;
    if (was_leader && !is_leader()) {
        _flush_deadline.reset();
        auto waiters = std::move(_waiters);
        _waiters.clear();
        for (auto& [offset, w] : waiters) {
            w.done(error{error_code::not_leader_or_follower, "leadership lost before commit"});
        }
        // Parked fetches get an error naming what this node knows now.
        _answer_parked = !_parked.empty();
    }
}

void raft_node::fail(error e) {
    if (!_failure) {
        logging::raft().error("event=raft_node_failed node={} error=\"{}\"", id(), e.message);
        _failure = std::move(e);
    }
}

void raft_node::send(node_id to, raft_message m) {
    _transport.send(to, std::move(m));
}

void raft_node::update_high_watermark(raft_offset hw) {
    if (!_high_watermark || hw > *_high_watermark) {
        _high_watermark = hw;
        if (is_leader()) {
            _commit_latency.committed(hw, _now);
        }
    }
}

result<raft_offset> raft_node::append(std::vector<bytes> records, raft_time now,
                                      std::optional<raft_epoch> epoch) {
    if (_failure) {
        return *_failure;
    }
    _now = std::max(_now, now);
    if (!is_leader() || (epoch && *epoch != this->epoch())) {
        return error{error_code::not_leader_or_follower,
                     fmt::format("not the leader of epoch {}", epoch.value_or(this->epoch()))};
    }
    if (records.empty()) {
        return error{error_code::invalid_request, "no records to append"};
    }
    auto last = _log.append_as_leader(std::move(records), this->epoch(), control_record_type::none);
    if (!last) {
        fail(last.err());
        return last.err();
    }
    _commit_latency.appended(*last, _now);
    if (!_flush_deadline) {
        _flush_deadline = _now + _config.append_linger;
    }
    // Followers waiting at the log end get the new batch now.
    _answer_parked = !_parked.empty();
    return last;
}

void raft_node::when_committed(raft_offset offset, std::function<void(status)> done) {
    if (_high_watermark && offset < *_high_watermark) {
        done({});
        return;
    }
    if (!is_leader()) {
        done(error{error_code::not_leader_or_follower, "not the leader"});
        return;
    }
    _waiters.emplace(offset, commit_waiter{epoch(), std::move(done)});
}

void raft_node::resign(raft_time now) {
    _now = std::max(_now, now);
    if (is_leader() && !_failure) {
        become_resigned(_quorum.as<leader_state>().preferred_successors());
        deliver();
    }
}

result<offset_and_epoch> raft_node::create_snapshot(raft_offset end_offset, bytes data) {
    if (!_high_watermark || end_offset > *_high_watermark || end_offset <= raft_offset{0}) {
        return error{error_code::invalid_request, "a snapshot must end at a committed offset"};
    }
    auto epoch = _log.epoch_for_offset(end_offset - 1);
    if (!epoch) {
        return error{error_code::offset_out_of_range, "snapshot end offset not in the log"};
    }
    raft_snapshot s{{end_offset, *epoch}, std::make_shared<const bytes>(std::move(data))};
    if (auto st = _log.store_snapshot(s); !st) {
        return st.err();
    }
    return s.id;
}

result<bool> raft_node::delete_log_before_snapshot() {
    return _log.truncate_before_latest_snapshot();
}

result<bool> raft_node::clean_snapshots(const snapshot_retention& retention, int64_t now_ms) {
    return raft::clean_snapshots(_log, retention, now_ms);
}

void raft_node::deliver() {
    // Committed batches, in order, whole.
    bool committed = false;
    while (!_failure && _high_watermark) {
        if (_next_to_apply < _log.start_offset()) {
            auto s = _log.latest_snapshot();
            if (!s || s->id.offset != _log.start_offset()) {
                fail(error{error_code::unknown_server_error, "log start without its snapshot"});
                return;
            }
            if (committed) {
                _listener.end_of_commits();
                committed = false;
            }
            _listener.handle_snapshot(*s);
            _next_to_apply = s->id.offset;
            continue;
        }
        raft_offset until = std::min(*_high_watermark, _log.end_offset());
        if (_next_to_apply >= until) {
            break;
        }
        auto batches = _log.read(_next_to_apply, _config.fetch_max_bytes);
        if (!batches) {
            fail(batches.err());
            return;
        }
        bool progressed = false;
        for (auto& b : *batches) {
            if (b.end_offset() > until) {
                break;  // not wholly committed yet
            }
            if (b.base_offset < _next_to_apply) {
                // Only after a snapshot ending inside a batch.
                b.records.erase(b.records.begin(),
                                b.records.begin() + (_next_to_apply - b.base_offset));
                b.base_offset = _next_to_apply;
            }
            _next_to_apply = b.end_offset();
            progressed = true;
            committed = true;
            _listener.handle_commit(b);
        }
        if (!progressed) {
            break;
        }
    }
    if (committed) {
        _listener.end_of_commits();
    }
    if (_high_watermark) {
        while (!_waiters.empty() && _waiters.begin()->first < *_high_watermark) {
            auto w = std::move(_waiters.begin()->second);
            _waiters.erase(_waiters.begin());
            w.done({});
        }
    }
    notify_leader_change();
}

void raft_node::notify_leader_change() {
    leader_and_epoch now = _quorum.leader();
    if (is_leader()) {
        // Only once the state machine holds everything before this epoch.
        const auto& l = _quorum.as<leader_state>();
        if (!l.high_watermark() || _next_to_apply < l.epoch_start_offset()) {
            return;
        }
    }
    if (!_notified || *_notified != now) {
        _notified = now;
        _listener.handle_leader_change(now);
    }
}

quorum_description raft_node::describe_quorum() const {
    quorum_description d;
    d.leader = leader();
    d.high_watermark = _high_watermark ? _high_watermark->value() : -1;
    if (!is_leader()) {
        d.error = error_code::not_leader_or_follower;
        return d;
    }
    auto describe = [](const replica_progress& p) {
        return replica_description{p.id, p.end_offset ? p.end_offset->value() : -1,
                                   p.last_fetch ? p.last_fetch->ms() : -1,
                                   p.last_caught_up ? p.last_caught_up->ms() : -1};
    };
    const auto& l = _quorum.as<leader_state>();
    for (const auto& [id, p] : l.voters()) {
        d.voters.push_back(describe(p));
    }
    for (const auto& [id, p] : l.observers()) {
        d.observers.push_back(describe(p));
    }
    return d;
}

}  // namespace samsa::raft
