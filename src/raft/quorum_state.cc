#include "raft/quorum_state.h"
#include "common/logging/loggers.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace samsa::raft {

std::string_view role_name(role_kind k) {
    switch (k) {
        case role_kind::unattached:
            return "unattached";
        case role_kind::voted:
            return "voted";
        case role_kind::prospective:
            return "prospective";
        case role_kind::candidate:
            return "candidate";
        case role_kind::leader:
            return "leader";
        case role_kind::follower:
            return "follower";
        case role_kind::resigned:
            return "resigned";
    }
    return "?";
}

raft_epoch quorum_state::epoch() const {
    return std::visit([](const auto& s) { return s.epoch(); }, _role);
}

leader_and_epoch quorum_state::leader() const {
    node_id l = no_node;
    if (const auto* f = std::get_if<follower_state>(&_role)) {
        l = f->leader();
    } else if (const auto* p = std::get_if<prospective_state>(&_role)) {
        l = p->leader();
    } else if (is(role_kind::leader)) {
        l = _config.local_id;
    }
    // A resigned leader was the leader of its epoch, but answers as not knowing
    // one: nobody should fetch from it any more.
    return {l, epoch()};
}

node_id quorum_state::voted() const {
    if (const auto* v = std::get_if<voted_state>(&_role)) {
        return v->voted_for();
    }
    if (const auto* p = std::get_if<prospective_state>(&_role)) {
        return p->voted();
    }
    if (is(role_kind::candidate) || is(role_kind::leader)) {
        return _config.local_id;
    }
    return no_node;
}

raft_time quorum_state::election_deadline(raft_time now) {
    if (_config.voters.size() == 1 && is_voter()) {
        return now;  // a quorum of one need not wait for anyone
    }
    int64_t t = _config.election_timeout.count();
    return now + raft_ms{_random.uniform(t, 2 * t)};
}

raft_time quorum_state::backoff_deadline(raft_time now) {
    return now + raft_ms{_random.uniform(_config.retry_backoff.count(),
                                         _config.election_backoff_max.count() + 1)};
}

status quorum_state::persist(raft_epoch epoch, node_id leader, node_id voted) {
    election_state s{epoch, leader, voted, _config.voters, _config.cluster_id};
    return _store.write(s);
}

status quorum_state::illegal(role_kind to) const {
    auto msg = fmt::format("illegal raft transition {} -> {} in epoch {}", role_name(kind()),
                           role_name(to), epoch());
    logging::raft().error("event=raft_illegal_transition node={} {}", _config.local_id, msg);
    return error{error_code::unknown_server_error, msg};
}

status quorum_state::initialize(raft_epoch log_last_epoch, raft_time now) {
    auto read = _store.read();
    if (!read) {
        return read.err();
    }
    election_state s = read->value_or(election_state{});
    if (!s.voters.empty()) {
        auto a = s.voters, b = _config.voters;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b) {
            return error{error_code::inconsistent_voter_set,
                         "the voters in quorum-state differ from controller.quorum.voters"};
        }
    }
    if (log_last_epoch > s.epoch) {
        // The log is ahead of the state file (written by hand, or lost): the
        // log's epoch did happen, so go on from there knowing nothing of it.
        logging::raft().warn("event=raft_state_behind_log node={} state_epoch={} log_epoch={}",
                             _config.local_id, s.epoch, log_last_epoch);
        if (auto st = persist(log_last_epoch, no_node, no_node); !st) {
            return st;
        }
        _role = unattached_state(log_last_epoch, election_deadline(now));
        return {};
    }
    node_id self = _config.local_id;
    if (s.leader == self && is_voter()) {
        std::set<node_id> others(_config.voters.begin(), _config.voters.end());
        others.erase(self);
        _role = resigned_state(s.epoch, {}, std::move(others), election_deadline(now));
    } else if (s.leader.is_valid() && s.leader != self) {
        _role = follower_state(s.epoch, s.leader, now + _config.fetch_timeout);
    } else if (s.voted.is_valid() && is_voter()) {
        _role = voted_state(s.epoch, s.voted, election_deadline(now));
    } else {
        _role = unattached_state(s.epoch, election_deadline(now));
    }
    return {};
}

status quorum_state::to_unattached(raft_epoch epoch, raft_time now) {
    bool observer_retry = !is_voter() && epoch == this->epoch() && is(role_kind::follower);
    if (epoch <= this->epoch() && !observer_retry) {
        return illegal(role_kind::unattached);
    }
    // A voter already waiting out an election timeout keeps waiting for the
    // same deadline (Kafka does the same): restarting it whenever a higher
    // epoch shows up would let a candidate that keeps losing (its log is
    // behind) keep everyone else from ever standing.
    std::optional<raft_time> deadline;
    if (const auto* u = std::get_if<unattached_state>(&_role)) {
        deadline = u->election_deadline();
    } else if (const auto* v = std::get_if<voted_state>(&_role)) {
        deadline = v->election_deadline();
    } else if (const auto* c = std::get_if<candidate_state>(&_role)) {
        deadline = c->election_deadline();
    } else if (const auto* p = std::get_if<prospective_state>(&_role)) {
        deadline = p->round_deadline();
    }
    if (auto st = persist(epoch, no_node, no_node); !st) {
        return st;
    }
    _role = unattached_state(epoch, deadline.value_or(election_deadline(now)));
    return {};
}

status quorum_state::to_voted(raft_epoch epoch, node_id candidate, raft_time now) {
    bool ok = is_voter() && candidate.is_valid() &&
              (epoch > this->epoch() || (epoch == this->epoch() && is(role_kind::unattached)));
    if (!ok) {
        return illegal(role_kind::voted);
    }
    if (auto st = persist(epoch, no_node, candidate); !st) {
        return st;
    }
    _role = voted_state(epoch, candidate, election_deadline(now));
    return {};
}

status quorum_state::to_follower(raft_epoch epoch, node_id leader, raft_time now) {
    bool ok = leader.is_valid() && leader != _config.local_id;
    if (ok && epoch == this->epoch()) {
        // Same epoch: only a replica that did not know its leader may learn it.
        switch (kind()) {
            case role_kind::unattached:
            case role_kind::voted:
            case role_kind::candidate:
                break;
            case role_kind::prospective: {
                node_id known = as<prospective_state>().leader();
                ok = !known.is_valid() || known == leader;
                break;
            }
            default:
                ok = false;
        }
    } else if (ok) {
        ok = epoch > this->epoch();
    }
    if (!ok) {
        return illegal(role_kind::follower);
    }
    node_id voted = epoch == this->epoch() ? this->voted() : no_node;
    if (auto st = persist(epoch, leader, voted); !st) {
        return st;
    }
    _role = follower_state(epoch, leader, now + _config.fetch_timeout);
    return {};
}

status quorum_state::to_prospective(raft_time now) {
    if (!is_voter() || is(role_kind::leader)) {
        return illegal(role_kind::prospective);
    }
    leader_and_epoch l = leader();
    _role = prospective_state(l.epoch, l.leader, voted(), new_tally(), election_deadline(now));
    return {};
}

void quorum_state::new_prospective_round(raft_time now) {
    as<prospective_state>().new_round(new_tally(), election_deadline(now));
}

status quorum_state::to_candidate(raft_time now) {
    if (!is(role_kind::prospective)) {
        return illegal(role_kind::candidate);
    }
    if (epoch() >= max_possible_epoch) {
        return error(
            error_code::invalid_request,
            fmt::format("epoch {} has no successor: the quorum cannot elect again", epoch()));
    }
    raft_epoch next = epoch().next();
    if (auto st = persist(next, no_node, _config.local_id); !st) {
        return st;
    }
    _role = candidate_state(next, new_tally(), election_deadline(now));
    return {};
}

status quorum_state::to_leader(raft_offset epoch_start_offset, raft_time now) {
    if (!is(role_kind::candidate) || !as<candidate_state>().tally().won()) {
        return illegal(role_kind::leader);
    }
    raft_epoch e = epoch();
    std::vector<node_id> granting = as<candidate_state>().tally().granted();
    if (auto st = persist(e, _config.local_id, _config.local_id); !st) {
        return st;
    }
    _role = leader_state(e, _config.local_id, _config.voters, epoch_start_offset,
                         std::move(granting), now);
    return {};
}

status quorum_state::to_resigned(std::vector<node_id> preferred_successors, raft_time now) {
    if (!is(role_kind::leader)) {
        return illegal(role_kind::resigned);
    }
    std::set<node_id> others(_config.voters.begin(), _config.voters.end());
    others.erase(_config.local_id);
    _role = resigned_state(epoch(), std::move(preferred_successors), std::move(others),
                           election_deadline(now));
    return {};
}

}  // namespace samsa::raft
