// raft_node: elections (Vote with pre-vote, KIP-595 and KIP-996) and the
// leader's announcements (BeginQuorumEpoch, EndQuorumEpoch).
#include <algorithm>

#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "protocol/generated/leader_change_message.h"
#include "protocol/writer.h"
#include "raft/raft_node.h"

namespace samsa::raft {

raft_node::epoch_check raft_node::observe(leader_and_epoch seen) {
    raft_epoch mine = _quorum.epoch();
    if (seen.epoch < mine) {
        return epoch_check::stale;
    }
    bool names_leader = seen.leader.is_valid() && seen.leader != id();
    if (seen.epoch > mine) {
        if (names_leader) {
            transition([&] { return _quorum.to_follower(seen.epoch, seen.leader, _now); });
        } else {
            transition([&] { return _quorum.to_unattached(seen.epoch, _now); });
        }
        return epoch_check::changed;
    }
    // Same epoch: a replica that did not know the leader learns it. (A leader
    // or a resigned one was the leader of this epoch itself.)
    bool knows = _quorum.leader().leader.is_valid() || _quorum.is(role_kind::leader) ||
                 _quorum.is(role_kind::resigned);
    if (names_leader && !knows) {
        transition([&] { return _quorum.to_follower(seen.epoch, seen.leader, _now); });
        return epoch_check::changed;
    }
    return epoch_check::current;
}

void raft_node::become_prospective() {
    if (!transition([&] { return _quorum.to_prospective(_now); })) {
        return;
    }
    start_pre_vote_round();
}

void raft_node::start_pre_vote_round() {
    auto& p = _quorum.as<prospective_state>();
    if (!_config.pre_vote) {
        become_candidate();
        return;
    }
    offset_and_epoch last = _log.end_offset_and_epoch();
    for (node_id v : _config.voters) {
        if (v == id()) {
            continue;
        }
        int32_t corr = next_correlation();
        p.tally().sent(v, corr);
        send(v, vote_request{corr, p.epoch().next(), id(), last, true});
    }
    logging::raft().debug("event=raft_pre_vote node={} epoch={} last_offset={} last_epoch={}", id(),
                          p.epoch().next(), last.offset, last.epoch);
    if (p.tally().won()) {
        become_candidate();  // a quorum of one
    }
}

void raft_node::become_candidate() {
    if (!transition([&] { return _quorum.to_candidate(_now); })) {
        return;
    }
    auto& c = _quorum.as<candidate_state>();
    offset_and_epoch last = _log.end_offset_and_epoch();
    logging::raft().info("event=raft_candidate node={} epoch={} last_offset={} last_epoch={}", id(),
                         c.epoch(), last.offset, last.epoch);
    for (node_id v : _config.voters) {
        if (v == id()) {
            continue;
        }
        int32_t corr = next_correlation();
        c.tally().sent(v, corr);
        send(v, vote_request{corr, c.epoch(), id(), last, false});
    }
    if (c.tally().won()) {
        become_leader();
    }
}

void raft_node::become_leader() {
    raft_offset start = _log.end_offset();
    if (!transition([&] { return _quorum.to_leader(start, _now); })) {
        return;
    }
    auto& l = _quorum.as<leader_state>();
    _commit_latency.reset_pending();
    logging::raft().info("event=raft_leader node={} epoch={} epoch_start_offset={}", id(),
                         l.epoch(), start);
    // KIP-595: the epoch opens with a LeaderChange control record, so an entry
    // of the new epoch exists to commit (and with it every earlier entry).
    protocol::leader_change_message m;
    m.leader_id = id();
    for (node_id v : _config.voters) {
        m.voters.emplace_back().voter_id = v.value();
    }
    for (node_id v : l.granting_voters()) {
        m.granting_voters.emplace_back().voter_id = v.value();
    }
    protocol::writer w;
    m.encode(w, 0);
    std::vector<bytes> records;
    records.push_back(std::move(w.buffer()));
    auto appended =
        _log.append_as_leader(std::move(records), l.epoch(), control_record_type::leader_change);
    if (!appended) {
        fail(appended.err());
        return;
    }
    _flush_deadline = _now;  // flushed by the poll that follows
    send_begin_quorum_epoch();
    flush_leader_log();
}

void raft_node::send_begin_quorum_epoch() {
    auto& l = _quorum.as<leader_state>();
    for (node_id v : l.voters_to_remind(_now, _config.fetch_timeout)) {
        send(v, begin_quorum_epoch_request{next_correlation(), {id(), l.epoch()}});
    }
    l.sent_begin_quorum_epoch(_now + _config.begin_quorum_epoch_retry);
}

void raft_node::become_resigned(std::vector<node_id> successors) {
    if (!transition([&] { return _quorum.to_resigned(std::move(successors), _now); })) {
        return;
    }
    logging::raft().info("event=raft_resigned node={} epoch={}", id(), epoch());
    send_end_quorum_epoch();
}

void raft_node::send_end_quorum_epoch() {
    auto& r = _quorum.as<resigned_state>();
    for (node_id v : r.unacknowledged()) {
        send(v, end_quorum_epoch_request{
                    next_correlation(), {id(), r.epoch()}, r.preferred_successors()});
    }
    r.sent_end_quorum_epoch(_now + _config.begin_quorum_epoch_retry);
}

bool raft_node::can_grant_pre_vote() const {
    switch (_quorum.kind()) {
        case role_kind::leader:
            return false;
        // KIP-996: a follower that hears from its leader keeps it.
        case role_kind::follower:
            return !_quorum.as<follower_state>().has_fetched_from_leader();
        default:
            return true;
    }
}

void raft_node::on_vote_request(node_id from, const vote_request& r) {
    vote_response out;
    out.correlation_id = r.correlation_id;
    auto reply = [&] {
        out.current_leader = _quorum.leader();
        send(from, out);
    };
    if (!_quorum.is_voter() || !_config.is_voter(r.candidate_id)) {
        out.error = error_code::inconsistent_voter_set;
        reply();
        return;
    }
    if (r.candidate_epoch < _quorum.epoch()) {
        reply();
        return;
    }
    bool up_to_date = r.last_offset >= _log.end_offset_and_epoch();
    if (r.pre_vote) {
        // Non-binding: nothing changes here, whatever the answer.
        out.vote_granted = up_to_date && can_grant_pre_vote();
        reply();
        return;
    }
    if (r.candidate_epoch > _quorum.epoch()) {
        if (!transition([&] { return _quorum.to_unattached(r.candidate_epoch, _now); })) {
            return;
        }
    }
    if (up_to_date) {
        if (_quorum.is(role_kind::unattached)) {
            // Persisted before the answer leaves: a restart cannot vote twice.
            out.vote_granted = transition(
                [&] { return _quorum.to_voted(r.candidate_epoch, r.candidate_id, _now); });
        } else if (_quorum.is(role_kind::voted)) {
            out.vote_granted = _quorum.as<voted_state>().voted_for() == r.candidate_id;
        }
    }
    if (_failure) {
        return;
    }
    logging::raft().debug("event=raft_vote node={} candidate={} epoch={} granted={}", id(),
                          r.candidate_id, r.candidate_epoch, out.vote_granted);
    reply();
}

void raft_node::on_vote_response(node_id from, const vote_response& r) {
    if (observe(r.current_leader) != epoch_check::current) {
        return;
    }
    bool granted = r.error == error_code::none && r.vote_granted;
    if (auto* p = _quorum.get_if<prospective_state>()) {
        if (!p->tally().record(from, r.correlation_id, granted)) {
            return;
        }
        if (p->tally().won()) {
            become_candidate();
        } else if (p->tally().lost()) {
            p->lost(_quorum.backoff_deadline(_now));
        }
    } else if (auto* c = _quorum.get_if<candidate_state>()) {
        if (!c->tally().record(from, r.correlation_id, granted)) {
            return;
        }
        if (c->tally().won()) {
            become_leader();
        } else if (c->tally().lost()) {
            c->lost(_quorum.backoff_deadline(_now));
        }
    }
}

void raft_node::on_begin_quorum_epoch_request(node_id from, const begin_quorum_epoch_request& r) {
    begin_quorum_epoch_response out;
    out.correlation_id = r.correlation_id;
    if (r.leader.epoch < _quorum.epoch()) {
        out.error = error_code::fenced_leader_epoch;
    } else {
        observe(r.leader);
    }
    if (_failure) {
        return;
    }
    out.current_leader = _quorum.leader();
    send(from, out);
}

void raft_node::on_begin_quorum_epoch_response(node_id from, const begin_quorum_epoch_response& r) {
    if (observe(r.current_leader) != epoch_check::current) {
        return;
    }
    if (auto* l = _quorum.get_if<leader_state>(); l && r.error == error_code::none) {
        l->acknowledge(from);
    }
}

void raft_node::on_end_quorum_epoch_request(node_id from, const end_quorum_epoch_request& r) {
    end_quorum_epoch_response out;
    out.correlation_id = r.correlation_id;
    if (r.leader.epoch < _quorum.epoch()) {
        out.error = error_code::fenced_leader_epoch;
    } else if (observe(r.leader) != epoch_check::stale) {
        auto* f = _quorum.get_if<follower_state>();
        if (f && f->leader() == r.leader.leader && f->epoch() == r.leader.epoch) {
            // The most up-to-date successor stands first; the others give it
            // a head start, so one election usually settles it.
            const auto& s = r.preferred_successors;
            auto pos = std::find(s.begin(), s.end(), id());
            int64_t max = _config.election_backoff_max.count();
            int64_t wait = max;
            if (pos != s.end()) {
                int64_t slot = max / int64_t(std::max<size_t>(s.size(), 1));
                wait = int64_t(pos - s.begin()) * slot +
                       _random.uniform(0, _config.retry_backoff.count() + 1);
            }
            f->leader_resigned();
            f->hurry_election(_now + raft_ms{wait});
        }
    }
    if (_failure) {
        return;
    }
    out.current_leader = _quorum.leader();
    send(from, out);
}

void raft_node::on_end_quorum_epoch_response(node_id from, const end_quorum_epoch_response& r) {
    if (observe(r.current_leader) == epoch_check::stale) {
        return;
    }
    if (auto* s = _quorum.get_if<resigned_state>(); s && r.error == error_code::none) {
        s->acknowledge(from);
    }
}

}  // namespace samsa::raft
