#pragma once
// raft_node: one replica of the KRaft quorum (Kafka's KafkaRaftClient): the
// voter or observer of the metadata partition, driven from outside.
//
// It owns no thread, clock, socket or file: the caller feeds it messages
// (handle), time (poll) and appends; it answers through the raft_transport,
// stores through the raft_log and quorum_state_store, reports to the
// raft_listener, and draws randomness from the random_source. Given the same
// inputs it does the same thing — which is what the deterministic simulation
// (tests/unit/raft/) relies on. Not thread-safe: one thread drives it.
//
// Driving it:
//   raft_node node(config, log, store, transport, listener, random);
//   node.start(now);                          // reads quorum-state, loads the snapshot
//   loop:
//     node.handle(from, message, now);        // each message from the transport
//     raft_time next = node.poll(now);        // timers; call again by `next`
//   node.append(records, now)                 // leader only; commits via the listener
//
// Call poll() after handle() and append() too: they may move the next
// deadline (an append is flushed after append.linger.ms, by poll). Calling
// poll() early or often is harmless. The transport's send() is called from
// inside these calls and must only queue (never call back into the node).
//
// Roles and transitions: raft/quorum_state.h. Replication and the commit rule:
// docs/raft.md.
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "common/result.h"
#include "raft/commit_latency.h"
#include "raft/quorum_state.h"
#include "raft/raft_config.h"
#include "raft/raft_listener.h"
#include "raft/raft_log.h"
#include "raft/raft_messages.h"
#include "raft/raft_transport.h"
#include "raft/random_source.h"
#include "raft/snapshot_cleaning.h"

namespace samsa::raft {

// DescribeQuorum (api 55) as the leader sees it.
struct replica_description {
    node_id id = no_node;
    int64_t log_end_offset = -1;
    int64_t last_fetch_ms = -1;
    int64_t last_caught_up_ms = -1;
};
struct quorum_description {
    error_code error = error_code::none;  // NOT_LEADER_OR_FOLLOWER off the leader
    leader_and_epoch leader;
    int64_t high_watermark = -1;
    std::vector<replica_description> voters;
    std::vector<replica_description> observers;
};

class raft_node {
  public:
    raft_node(raft_config config, raft_log& log, quorum_state_store& store,
              raft_transport& transport, raft_listener& listener, random_source& random);
    raft_node(const raft_node&) = delete;
    raft_node& operator=(const raft_node&) = delete;

    // Reads the persisted election state and takes its role; hands the latest
    // snapshot to the listener. Errors: the store's (KAFKA_STORAGE_ERROR),
    // INCONSISTENT_VOTER_SET.
    status start(raft_time now);
    // A message from `from` (a request or the response to one of ours).
    void handle(node_id from, const raft_message& message, raft_time now);
    // Runs what is due at `now`; returns when it wants to be polled next.
    raft_time poll(raft_time now);

    // Leader: appends `records` as one batch in the current epoch (or fails
    // when `epoch` is given and is not the current one: a state machine acting
    // on an epoch it no longer leads). Returns the last offset. The batch is
    // committed when the high watermark passes it; the listener hears then.
    // NOT_LEADER_OR_FOLLOWER when not the leader.
    result<raft_offset> append(std::vector<bytes> records, raft_time now,
                               std::optional<raft_epoch> epoch = std::nullopt);
    // `done(ok)` once `offset` is committed; `done(NOT_LEADER_OR_FOLLOWER)`
    // when this node stops leading before that (the entry may still commit
    // under the next leader, or be dropped: the caller cannot know).
    void when_committed(raft_offset offset, std::function<void(status)> done);
    // Leader: give up leadership now (shutdown), telling the voters.
    void resign(raft_time now);

    // Stores a snapshot of the state machine covering offsets below
    // `end_offset` (committed: at most the high watermark; at a batch
    // boundary). Returns its id.
    result<offset_and_epoch> create_snapshot(raft_offset end_offset, bytes data);
    // Drops the log below the latest snapshot (KIP-630); followers behind it
    // will fetch the snapshot. Returns whether anything was dropped.
    result<bool> delete_log_before_snapshot();
    // Metadata log retention (raft/snapshot_cleaning.h): drops old snapshots
    // and the log below the next one past the retention limits.
    result<bool> clean_snapshots(const snapshot_retention& retention, int64_t now_ms);

    node_id id() const { return _config.local_id; }
    const raft_config& config() const { return _config; }
    role_kind role() const { return _quorum.kind(); }
    leader_and_epoch leader() const { return _quorum.leader(); }
    raft_epoch epoch() const { return _quorum.epoch(); }
    bool is_leader() const { return _quorum.is(role_kind::leader); }
    // Every offset below it is committed. nullopt until this node knows.
    std::optional<raft_offset> high_watermark() const { return _high_watermark; }
    // The next offset the listener will be handed.
    raft_offset next_offset_to_apply() const { return _next_to_apply; }
    quorum_description describe_quorum() const;
    // Set when the node stopped: a log or quorum-state write failed, or the
    // leader asked it to truncate committed data (which Raft rules out).
    const std::optional<error>& failure() const { return _failure; }
    // The leader's append-to-commit times (Kafka's commit-latency-avg/max).
    raft::commit_latency& commit_latency() { return _commit_latency; }

  private:
    enum class epoch_check { stale, current, changed };
    struct in_flight_fetch {
        int32_t correlation_id = 0;
        node_id to = no_node;
        raft_time sent;
        bool snapshot = false;
    };
    struct parked_fetch {
        node_id from;
        fetch_request request;
        raft_time deadline;
    };
    struct commit_waiter {
        raft_epoch epoch;
        std::function<void(status)> done;
    };

    // raft_node.cc: transitions, delivery to the listener, timers.
    // Runs a quorum_state transition; on success, resets what the previous
    // role had outstanding. False (and the node failed) when it could not
    // persist.
    bool transition(const std::function<status()>& t);
    void after_transition(bool was_leader);
    void fail(error e);
    void send(node_id to, raft_message m);
    int32_t next_correlation() { return _next_correlation++; }
    void update_high_watermark(raft_offset hw);
    void deliver();
    void notify_leader_change();
    raft_time next_deadline() const;

    // raft_node_election.cc: Vote, BeginQuorumEpoch, EndQuorumEpoch.
    epoch_check observe(leader_and_epoch seen);
    void become_prospective();
    void start_pre_vote_round();
    void become_candidate();
    void become_leader();
    void become_resigned(std::vector<node_id> successors);
    void send_end_quorum_epoch();
    void send_begin_quorum_epoch();
    bool can_grant_pre_vote() const;
    void on_vote_request(node_id from, const vote_request& r);
    void on_vote_response(node_id from, const vote_response& r);
    void on_begin_quorum_epoch_request(node_id from, const begin_quorum_epoch_request& r);
    void on_begin_quorum_epoch_response(node_id from, const begin_quorum_epoch_response& r);
    void on_end_quorum_epoch_request(node_id from, const end_quorum_epoch_request& r);
    void on_end_quorum_epoch_response(node_id from, const end_quorum_epoch_response& r);

    // raft_node_fetch.cc: replication (both sides) and snapshots.
    void poll_leader();
    void flush_leader_log();
    void on_leader_high_watermark();
    // Sends a Fetch (or FetchSnapshot) to `to` unless one is outstanding or
    // backing off; true when it sent.
    bool maybe_send_fetch(node_id to);
    void on_fetch_request(node_id from, const fetch_request& r, bool may_park);
    void on_fetch_response(node_id from, const fetch_response& r);
    void on_fetch_snapshot_request(node_id from, const fetch_snapshot_request& r);
    void on_fetch_snapshot_response(node_id from, const fetch_snapshot_response& r);
    void answer_parked_fetches(bool only_expired);
    error_code leader_epoch_error(raft_epoch requested) const;
    void step_down_for(raft_epoch requested);
    bool truncate_diverging(offset_and_epoch diverging);
    void install_snapshot(snapshot_transfer& t);

    raft_config _config;
    raft_log& _log;
    raft_transport& _transport;
    raft_listener& _listener;
    random_source& _random;
    quorum_state _quorum;

    raft_time _now{};
    int32_t _next_correlation = 0;
    std::optional<error> _failure;
    std::optional<raft_offset> _high_watermark;
    raft_offset _next_to_apply{0};
    std::optional<leader_and_epoch> _notified;

    // Replica side: the one Fetch/FetchSnapshot outstanding, and when the next
    // may go (after an error).
    std::optional<in_flight_fetch> _fetch;
    raft_time _next_fetch_at{};
    int64_t _probe_index = -1;  // observers looking for the leader: next voter to ask

    // Leader side.
    std::vector<parked_fetch> _parked;
    bool _answer_parked = false;
    std::optional<raft_time> _flush_deadline;
    std::multimap<raft_offset, commit_waiter> _waiters;
    raft::commit_latency _commit_latency;
};

}  // namespace samsa::raft
