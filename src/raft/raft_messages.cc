#include "raft/raft_messages.h"

#include <fmt/format.h>

namespace samsa::raft {

namespace {

std::string leader_str(const leader_and_epoch& l) {
    return fmt::format("leader={} epoch={}", l.leader, l.epoch);
}
std::string oe_str(const offset_and_epoch& o) {
    return fmt::format("{}@{}", o.offset, o.epoch);
}

struct describer {
    std::string operator()(const vote_request& m) const {
        return fmt::format("{}{{corr={} candidate={} epoch={} last={}}}",
                           m.pre_vote ? "PreVote" : "Vote", m.correlation_id, m.candidate_id,
                           m.candidate_epoch, oe_str(m.last_offset));
    }
    std::string operator()(const vote_response& m) const {
        return fmt::format("VoteResponse{{corr={} err={} {} granted={}}}", m.correlation_id,
                           int(m.error), leader_str(m.current_leader), m.vote_granted);
    }
    std::string operator()(const begin_quorum_epoch_request& m) const {
        return fmt::format("BeginQuorumEpoch{{corr={} {}}}", m.correlation_id,
                           leader_str(m.leader));
    }
    std::string operator()(const begin_quorum_epoch_response& m) const {
        return fmt::format("BeginQuorumEpochResponse{{corr={} err={} {}}}", m.correlation_id,
                           int(m.error), leader_str(m.current_leader));
    }
    std::string operator()(const end_quorum_epoch_request& m) const {
        return fmt::format("EndQuorumEpoch{{corr={} {} successors={}}}", m.correlation_id,
                           leader_str(m.leader), m.preferred_successors.size());
    }
    std::string operator()(const end_quorum_epoch_response& m) const {
        return fmt::format("EndQuorumEpochResponse{{corr={} err={} {}}}", m.correlation_id,
                           int(m.error), leader_str(m.current_leader));
    }
    std::string operator()(const fetch_request& m) const {
        return fmt::format("Fetch{{corr={} replica={} epoch={} offset={} last_epoch={}}}",
                           m.correlation_id, m.replica_id, m.current_leader_epoch, m.fetch_offset,
                           m.last_fetched_epoch);
    }
    std::string operator()(const fetch_response& m) const {
        std::string extra;
        if (m.diverging_epoch) {
            extra += " diverging=" + oe_str(*m.diverging_epoch);
        }
        if (m.snapshot_id) {
            extra += " snapshot=" + oe_str(*m.snapshot_id);
        }
        if (!m.records.empty()) {
            extra += fmt::format(" records=[{},{})", m.records.front().base_offset,
                                 m.records.back().end_offset());
        }
        return fmt::format("FetchResponse{{corr={} err={} {} hw={}{}}}", m.correlation_id,
                           int(m.error), leader_str(m.current_leader),
                           m.high_watermark ? m.high_watermark->value() : -1, extra);
    }
    std::string operator()(const fetch_snapshot_request& m) const {
        return fmt::format("FetchSnapshot{{corr={} replica={} epoch={} snapshot={} position={}}}",
                           m.correlation_id, m.replica_id, m.current_leader_epoch,
                           oe_str(m.snapshot_id), m.position);
    }
    std::string operator()(const fetch_snapshot_response& m) const {
        return fmt::format(
            "FetchSnapshotResponse{{corr={} err={} {} snapshot={} position={} size={} chunk={}}}",
            m.correlation_id, int(m.error), leader_str(m.current_leader), oe_str(m.snapshot_id),
            m.position, m.size, m.chunk.size());
    }
};

struct request_check {
    bool operator()(const vote_request&) const { return true; }
    bool operator()(const begin_quorum_epoch_request&) const { return true; }
    bool operator()(const end_quorum_epoch_request&) const { return true; }
    bool operator()(const fetch_request&) const { return true; }
    bool operator()(const fetch_snapshot_request&) const { return true; }
    template <typename T>
    bool operator()(const T&) const {
        return false;
    }
};

}  // namespace

bool is_request(const raft_message& m) {
    return std::visit(request_check{}, m);
}

std::string describe(const raft_message& m) {
    return std::visit(describer{}, m);
}

}  // namespace samsa::raft
