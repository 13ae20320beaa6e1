#pragma once
// `samsa groups --reset-offsets`: kafka-consumer-groups.sh's offset reset.
// Computes the new committed offset of each chosen partition (earliest, latest,
// a given offset, a point in time, a shift from the committed one), prints the
// plan, and commits it only with --execute — and only while the group has no
// active members (state Empty or Dead), as Kafka requires.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace samsa::tools {

class kafka_client;

enum class reset_kind { earliest, latest, to_offset, to_datetime, shift_by, to_current };

struct reset_request {
    std::string group;
    std::vector<std::string> topics;  // "t" (all partitions) or "t:0,2"
    bool all_topics = false;          // every partition the group has an offset for
    reset_kind kind = reset_kind::earliest;
    int64_t value = 0;  // the offset, the shift, or the time in ms since the epoch
    bool execute = false;
};

// Prints the plan (and commits it with `execute`); returns the exit code.
int run_reset_offsets(kafka_client& client, const reset_request& req);

// Kafka's --to-datetime format: YYYY-MM-DDTHH:mm:SS[.sss][Z|+hh:mm|-hh:mm|+hhmm];
// no zone means UTC. Milliseconds since the epoch, or nullopt if malformed.
std::optional<int64_t> parse_reset_datetime(std::string_view text);

}  // namespace samsa::tools
