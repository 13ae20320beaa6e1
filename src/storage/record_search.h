#pragma once
// record_search: the record-level step of a lookup by timestamp. Indexes and
// batch headers narrow a ListOffsets-by-timestamp query down to one batch (the
// first whose max timestamp reaches the target); Kafka then answers with the
// first record of that batch whose timestamp reaches it, which needs the
// records themselves (decompressed when the batch is compressed).
#include <cstdint>
#include <optional>

#include "common/bytes.h"
#include "common/result.h"

namespace samsa::storage {

struct record_timestamp {
    int64_t timestamp;
    int64_t offset;
};

// The first record of `batch` (one whole v2 batch) with timestamp >= `target`
// and offset >= `min_offset`; nullopt when none. Errors are the record room's
// (CORRUPT_MESSAGE, INVALID_RECORD, UNSUPPORTED_COMPRESSION_TYPE).
result<std::optional<record_timestamp>> find_first_record_at_or_after(bytes_view batch,
                                                                      int64_t target,
                                                                      int64_t min_offset);

}  // namespace samsa::storage
