#include "raft/request_checks.h"

#include <fmt/format.h>

namespace samsa::raft {

namespace {

bool possible(raft_epoch e) {
    return e.value() >= 0 && e <= max_possible_epoch;
}

std::optional<refusal> bad_epoch(const char* field, raft_epoch e) {
    if (possible(e)) {
        return std::nullopt;
    }
    return refusal{error_code::invalid_request,
                   fmt::format("{} {} is outside [0, {}]", field, e, max_possible_epoch)};
}

std::optional<refusal> from_self(const raft_config& c, const char* role, node_id id) {
    if (id != c.local_id) {
        return std::nullopt;
    }
    return refusal{
        error_code::invalid_request,
        fmt::format("the {} is this node ({}): a node never sends itself a request", role, id)};
}

std::optional<refusal> leader_checks(const raft_config& c, const leader_and_epoch& l) {
    if (auto r = bad_epoch("leader epoch", l.epoch)) {
        return r;
    }
    if (auto r = from_self(c, "leader", l.leader)) {
        return r;
    }
    if (!c.is_voter(l.leader)) {
        return refusal{error_code::inconsistent_voter_set,
                       fmt::format("leader {} is not a voter", l.leader)};
    }
    return std::nullopt;
}

// A Fetch's or FetchSnapshot's epoch outside what a leader can have: what
// Kafka's leader answers any epoch below or above its own
// (validateLeaderOnlyRequest), FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH,
// before a step-down could adopt it.
std::optional<refusal> fetcher_epoch(raft_epoch e) {
    if (possible(e)) {
        return std::nullopt;
    }
    return refusal{
        e.value() < 0 ? error_code::fenced_leader_epoch : error_code::unknown_leader_epoch,
        fmt::format("current leader epoch {} is outside [0, {}]", e, max_possible_epoch)};
}

// Responses: only their epochs, which a node would otherwise adopt.
template <typename Response>
std::optional<refusal> response_checks(const Response& r) {
    return bad_epoch("current leader epoch", r.current_leader.epoch);
}

struct checker {
    const raft_config& c;

    std::optional<refusal> operator()(const vote_request& r) const {
        if (auto e = bad_epoch("candidate epoch", r.candidate_epoch)) {
            return e;
        }
        if (auto e = from_self(c, "candidate", r.candidate_id)) {
            return e;
        }
        if (r.last_offset.offset.value() < 0 || r.last_offset.epoch.value() < 0 ||
            r.last_offset.epoch >= r.candidate_epoch) {
            return refusal{
                error_code::invalid_request,
                fmt::format("last offset {} in epoch {} does not precede candidate "
                            "epoch {}",
                            r.last_offset.offset, r.last_offset.epoch, r.candidate_epoch)};
        }
        return std::nullopt;
    }
    std::optional<refusal> operator()(const begin_quorum_epoch_request& r) const {
        return leader_checks(c, r.leader);
    }
    std::optional<refusal> operator()(const end_quorum_epoch_request& r) const {
        return leader_checks(c, r.leader);
    }
    std::optional<refusal> operator()(const fetch_request& r) const {
        if (auto e = fetcher_epoch(r.current_leader_epoch)) {
            return e;
        }
        if (auto e = bad_epoch("last fetched epoch", r.last_fetched_epoch)) {
            return e;
        }
        return from_self(c, "fetching replica", r.replica_id);
    }
    std::optional<refusal> operator()(const fetch_snapshot_request& r) const {
        if (auto e = fetcher_epoch(r.current_leader_epoch)) {
            return e;
        }
        return from_self(c, "fetching replica", r.replica_id);
    }
    std::optional<refusal> operator()(const vote_response& r) const { return response_checks(r); }
    std::optional<refusal> operator()(const begin_quorum_epoch_response& r) const {
        return response_checks(r);
    }
    std::optional<refusal> operator()(const end_quorum_epoch_response& r) const {
        return response_checks(r);
    }
    std::optional<refusal> operator()(const fetch_response& r) const {
        if (auto e = response_checks(r)) {
            return e;
        }
        if (r.diverging_epoch) {
            if (auto e = bad_epoch("diverging epoch", r.diverging_epoch->epoch)) {
                return e;
            }
        }
        if (r.snapshot_id) {
            return bad_epoch("snapshot epoch", r.snapshot_id->epoch);
        }
        return std::nullopt;
    }
    std::optional<refusal> operator()(const fetch_snapshot_response& r) const {
        if (auto e = response_checks(r)) {
            return e;
        }
        return bad_epoch("snapshot epoch", r.snapshot_id.epoch);
    }
};

}  // namespace

std::optional<refusal> refuse(const raft_config& config, node_id, const raft_message& m) {
    return std::visit(checker{config}, m);
}

raft_message error_response(const raft_message& request, error_code code,
                            leader_and_epoch current) {
    const int32_t corr = std::visit([](const auto& v) { return v.correlation_id; }, request);
    if (std::holds_alternative<vote_request>(request)) {
        return vote_response{corr, code, current, false};
    }
    if (std::holds_alternative<begin_quorum_epoch_request>(request)) {
        return begin_quorum_epoch_response{corr, code, current};
    }
    if (std::holds_alternative<end_quorum_epoch_request>(request)) {
        return end_quorum_epoch_response{corr, code, current};
    }
    if (std::holds_alternative<fetch_snapshot_request>(request)) {
        fetch_snapshot_response s;
        s.correlation_id = corr;
        s.error = code;
        s.current_leader = current;
        return s;
    }
    fetch_response f;
    f.correlation_id = corr;
    f.error = code;
    f.current_leader = current;
    return f;
}

}  // namespace samsa::raft
