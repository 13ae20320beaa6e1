#pragma once
// replay_connection: one plain TCP connection of `samsa perf replay` that sends
// prebuilt Produce requests as fast as the broker answers them, with up to
// `in_flight` unanswered at once (Kafka answers in order on a connection).
//
// Why not a client library: the replay measures the broker, so the sender
// does as little as possible per byte. Each request is a frame built once;
// sending it again only rewrites its correlation id in place, and the frame
// goes to the kernel straight from that buffer (no encode, no copy, no
// compression, no checksum). A sender thread writes, a reader thread reads
// the answers and frees a slot of the window.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "tools/latency_histogram.h"

namespace samsa::tools {

struct replay_plan {
    std::string host;
    uint16_t port = 0;
    // Whole Produce frames (size prefix, header, body), sent in turn; the
    // correlation id is at byte 8 of each.
    std::vector<bytes> frames;
    int16_t api_version = 0;
    uint64_t requests = 0;  // how many to send in all
    int in_flight = 5;
};

struct replay_outcome {
    uint64_t answered = 0;
    uint64_t failed = 0;          // answered with an error code
    int16_t first_error = 0;      // the first error code answered, if any
    std::string broken;           // why the connection stopped early, if it did
    latency_histogram latencies;  // microseconds, request sent to answer read
};

// Connects, sends plan.requests frames and reads their answers; blocks until
// every answer is in or the connection breaks. `stop` (a signal) ends it
// early. `sent_bytes` counts bytes written as they go, for progress lines.
replay_outcome run_replay_connection(const replay_plan& plan, const std::atomic<bool>& stop,
                                     std::atomic<uint64_t>& sent_bytes);

// The byte offset of the correlation id in a request frame.
inline constexpr size_t correlation_id_offset = 4 + 2 + 2;

}  // namespace samsa::tools
