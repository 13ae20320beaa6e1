#pragma once
// Fetch planning: which partitions one Fetch request reads, at which offsets
// and with which limits, after applying its session (KIP-227) and resolving
// topic names / ids (v13+) against the metadata image.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/uuid.h"
#include "metadata/metadata_image.h"
#include "protocol/generated/fetch_request.h"
#include "server/fetch/fetch_session_cache.h"

namespace samsa::server::fetch {

struct fetch_target {
    session_partition_key key;  // topic name ("" when an unknown id) + partition
    uuid topic_id;
    int64_t fetch_offset = 0;
    int32_t partition_max_bytes = 0;
    int32_t current_leader_epoch = -1;
    int32_t last_fetched_epoch = -1;      // a follower's (v12+); -1: not checked
    error_code error = error_code::none;  // set when the topic/partition is unknown
    size_t shard = 0;
    // Where the session keeps this partition (incremental responses), or null.
    session_partition* in_session = nullptr;
};

struct fetch_plan {
    fetch_plan() = default;
    fetch_plan(const fetch_plan&) = delete;
    fetch_plan& operator=(const fetch_plan&) = delete;
    fetch_plan(fetch_plan&&) = default;
    // Releases the session for the client's next request.
    ~fetch_plan() {
        if (session && cache) {
            cache->release(*session);
        }
    }

    error_code error = error_code::none;  // top-level (session) error
    int32_t response_session_id = 0;
    bool incremental = false;
    std::shared_ptr<fetch_session> session;  // held for the request's duration
    fetch_session_cache* cache = nullptr;
    std::vector<fetch_target> targets;
};

using shard_fn = std::function<size_t(const uuid& topic_id, int32_t partition)>;

// `shard_of` routes each resolved partition to its shard.
fetch_plan make_fetch_plan(const protocol::fetch_request& req, int16_t version,
                           const metadata::metadata_image& image, fetch_session_cache& sessions,
                           int64_t now_ms, const shard_fn& shard_of);

}  // namespace samsa::server::fetch
