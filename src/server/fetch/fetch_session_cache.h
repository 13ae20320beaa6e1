#pragma once
// Incremental fetch sessions (KIP-227). A session remembers, per partition, the
// fetch offset and limits the client last sent and the high watermark / last
// stable offset / log start offset the broker last returned, so that later
// requests name only what changed and responses carry only what changed.
//
// Request (session_id, session_epoch) meanings:
//   (0, -1)  full fetch, no session           (0, 0)  full fetch, new session
//   (X, 0)   close X, full fetch, new session (X, -1) close X, full fetch, none
//   (X, n>0) incremental fetch in session X; n must be X's next epoch
//
// Thread-safety: the cache is shared by every reactor; its map and each
// session's epoch are guarded by one mutex. A session's partitions are touched
// only by the one request that holds it: acquire() refuses a session that is
// in use (a client that sends the next epoch before the previous answer gets
// INVALID_FETCH_SESSION_EPOCH), and the holder releases it when it answered.
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "common/uuid.h"

namespace samsa::server::fetch {

struct session_partition_key {
    std::string topic;  // resolved name (sessions may also key by id)
    int32_t partition = 0;
    auto operator<=>(const session_partition_key&) const = default;
};

struct session_partition {
    uuid topic_id;
    int64_t fetch_offset = 0;
    int32_t max_bytes = 0;
    int32_t current_leader_epoch = -1;
    int32_t last_fetched_epoch = -1;  // a follower's, for the diverging-epoch check
    // Last values sent to the client; -1 = never sent.
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
};

class fetch_session {
  public:
    fetch_session(int32_t id, bool uses_topic_ids) : _id(id), _uses_topic_ids(uses_topic_ids) {}

    int32_t id() const { return _id; }
    bool uses_topic_ids() const { return _uses_topic_ids; }
    // Partitions in the order they are served (rotated for fairness).
    std::vector<std::pair<session_partition_key, session_partition>>& partitions() {
        return _partitions;
    }
    session_partition* find(const session_partition_key& k);
    // Adds or updates a partition the client named.
    void upsert(const session_partition_key& k, const session_partition& p);
    void remove(const session_partition_key& k);

  private:
    friend class fetch_session_cache;
    int32_t _id;
    bool _uses_topic_ids;
    int32_t _next_epoch = 1;
    int64_t _last_used_ms = 0;
    bool _in_use = false;  // guarded by the cache's mutex
    std::vector<std::pair<session_partition_key, session_partition>> _partitions;
};

class fetch_session_cache {
  public:
    // max.incremental.fetch.session.cache.slots (1000).
    explicit fetch_session_cache(size_t max_sessions = 1000) : _max_sessions(max_sessions) {}

    // A new session with epoch 1 next, or nullptr when the cache is full and
    // nothing can be evicted (the client then fetches without a session).
    // The session is held by the caller until release().
    std::shared_ptr<fetch_session> create(bool uses_topic_ids, int64_t now_ms);
    // The session for an incremental fetch, advancing its epoch, held by the
    // caller until release(). FETCH_SESSION_ID_NOT_FOUND /
    // INVALID_FETCH_SESSION_EPOCH as Kafka answers.
    result<std::shared_ptr<fetch_session>> acquire(int32_t id, int32_t epoch, int64_t now_ms);
    void release(fetch_session& s);
    void remove(int32_t id);
    size_t size() const;

  private:
    mutable std::mutex _mutex;
    size_t _max_sessions;
    int32_t _last_id = 0;
    std::unordered_map<int32_t, std::shared_ptr<fetch_session>> _sessions;
};

}  // namespace samsa::server::fetch
