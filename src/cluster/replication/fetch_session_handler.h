#pragma once
// The fetching side of an incremental fetch session (KIP-227), as a follower's
// fetcher uses it (Kafka's FetchSessionHandler).
//
// The first request is full and asks for a session (session_epoch 0). Once
// the leader answered with a session id, each request names only the
// partitions whose fetch state changed since the leader last accepted it
// (a new fetch offset after an append or a truncation, a new leader epoch,
// ...) and lists the ones no longer followed as forgotten; the leader serves
// every partition of the session and answers only those with news.
//
// A session error in the answer (FETCH_SESSION_ID_NOT_FOUND,
// INVALID_FETCH_SESSION_EPOCH) or a failed round trip makes the next request
// full again: after a lost answer the leader may or may not have applied the
// request, so nothing it holds is assumed. A full request that gets no session
// (the leader's cache is full) is simply repeated: every fetch is then full.
//
// Not thread-safe: owned by one fetcher coroutine, which alternates build()
// and one of handle_response() / handle_error().
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/uuid.h"
#include "protocol/generated/fetch_request.h"

namespace samsa::cluster::replication {

// What a follower asks of one partition.
struct partition_fetch_state {
    std::string topic;
    uuid topic_id;
    int32_t partition = 0;
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;
    int64_t log_start_offset = 0;
    int32_t max_bytes = 0;
    int32_t current_leader_epoch = -1;
    bool operator==(const partition_fetch_state&) const = default;
};

class fetch_session_handler {
  public:
    // Fills `req`'s session id and epoch, topics and forgotten topics for
    // fetching `wanted` (every partition the fetcher follows from this leader
    // right now). The request names topics by id (Fetch v13+).
    void build(const std::vector<partition_fetch_state>& wanted, protocol::fetch_request& req);

    // The answer to the last built request: its top-level error and session id.
    void handle_response(error_code error, int32_t session_id);

    // The last built request got no answer.
    void handle_error();

    int32_t session_id() const { return _session_id; }
    // 0: the next request is full.
    int32_t next_epoch() const { return _next_epoch; }
    // Whether the last built request was incremental.
    bool last_was_incremental() const { return _pending_incremental; }

  private:
    using key = std::pair<uuid, int32_t>;
    static int32_t following(int32_t epoch) { return epoch == INT32_MAX ? 1 : epoch + 1; }

    int32_t _session_id = 0;
    int32_t _next_epoch = 0;
    // What the leader's session holds (as of the last accepted request), and
    // what it will hold once the request in flight is accepted.
    std::map<key, partition_fetch_state> _session;
    std::map<key, partition_fetch_state> _pending;
    bool _pending_incremental = false;
};

}  // namespace samsa::cluster::replication
