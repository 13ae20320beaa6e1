#include "raft/snapshot_cleaning.h"

#include <functional>
#include <vector>

#include "protocol/generated/snapshot_header_record.h"
#include "protocol/reader.h"
#include "raft/raft_batch_codec.h"

namespace samsa::raft {

namespace {

// Deletes below the next snapshot while `goes(snapshots)` holds for the
// snapshots left (oldest first), as Kafka's cleanSnapshots walks them pairwise.
result<bool> clean_while(raft_log& log,
                         const std::function<bool(const std::vector<snapshot_info>&)>& goes) {
    bool cleaned = false;
    for (;;) {
        auto snapshots = log.snapshot_infos();
        if (snapshots.size() < 2 || !goes(snapshots)) {
            return cleaned;
        }
        auto deleted = log.delete_before_snapshot(snapshots[1].id);
        if (!deleted) {
            return deleted.err();
        }
        if (!*deleted) {
            return cleaned;
        }
        cleaned = true;
    }
}

}  // namespace

result<bool> clean_snapshots(raft_log& log, const snapshot_retention& retention, int64_t now_ms) {
    bool cleaned = false;
    if (retention.max_bytes >= 0) {
        auto by_size = clean_while(log, [&](const std::vector<snapshot_info>& snapshots) {
            int64_t total = log.size_bytes();
            for (const auto& s : snapshots) {
                total += s.size_bytes;
            }
            return total > retention.max_bytes;
        });
        if (!by_size) {
            return by_size;
        }
        cleaned |= *by_size;
    }
    if (retention.max_ms >= 0) {
        auto by_age = clean_while(log, [&](const std::vector<snapshot_info>& snapshots) {
            const auto& oldest = snapshots.front();
            return oldest.timestamp_ms && now_ms - *oldest.timestamp_ms > retention.max_ms;
        });
        if (!by_age) {
            return by_age;
        }
        cleaned |= *by_age;
    }
    return cleaned;
}

std::optional<int64_t> snapshot_header_timestamp(bytes_view data) {
    // Only the first batch: what follows is the state machine's.
    constexpr size_t k_length_end = 12;  // base offset (8) and batch length (4)
    if (data.size() < k_length_end) {
        return std::nullopt;
    }
    const uint32_t length = load_be32(data.data() + 8);
    if (length > data.size() - k_length_end) {
        return std::nullopt;
    }
    auto batches = decode_record_batches(data.subspan(0, k_length_end + length));
    if (!batches || batches->empty()) {
        return std::nullopt;
    }
    const raft_batch& first = batches->front();
    if (first.control != control_record_type::snapshot_header || first.records.empty()) {
        return std::nullopt;
    }
    protocol::reader r(bytes_view(first.records.front()));
    protocol::snapshot_header_record header;
    header.decode(r, 0);
    if (!r.ok()) {
        return std::nullopt;
    }
    return header.last_contained_log_timestamp;
}

}  // namespace samsa::raft
