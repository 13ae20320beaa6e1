#pragma once
// The console's message browser: a page of one partition's records from an
// offset or a timestamp, read from this broker's leader log as a consumer
// would read it (read_uncommitted, up to the high watermark), decoded off
// the reactor. Keys, values and header values travel as base64; the page
// shows them as text, JSON or hex.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"

namespace samsa::cluster {
class replica_manager;
}
namespace samsa::metadata {
class metadata_image;
}

namespace samsa::server::http {

struct browsed_record {
    int64_t offset = -1;
    int64_t timestamp = -1;
    std::optional<std::string> key, value;  // raw bytes; nullopt: null
    std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

struct browse_request {
    std::string topic;
    int32_t partition = 0;
    std::optional<int64_t> offset;     // first offset wanted
    std::optional<int64_t> timestamp;  // else: the first record at or after it
    size_t limit = 50;
};

struct browse_result {
    error_code error = error_code::none;
    std::string message;
    int64_t start_offset = -1;  // where the page starts
    int64_t log_start_offset = -1;
    int64_t high_watermark = -1;
    std::vector<browsed_record> records;
};

// Off the reactors only; waits at most `patience` for the partition's shard.
browse_result browse_records(cluster::replica_manager& replicas,
                             const metadata::metadata_image& image, const browse_request& req,
                             std::chrono::milliseconds patience);

}  // namespace samsa::server::http
