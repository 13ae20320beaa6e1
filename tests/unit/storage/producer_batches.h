#pragma once
// Record batches of idempotent and transactional producers for storage tests,
// built with record/batch_builder.h as a client would send them (base offset
// 0; the log assigns offsets).
#include <cstdint>
#include <optional>
#include <string>

#include "common/bytes.h"
#include "record/batch_builder.h"
#include "record/control_record.h"

namespace samsa::storage::testing {

inline constexpr int64_t test_now_ms = 1700000000000;

struct producer_batch_spec {
    int64_t producer_id = 1000;
    int16_t epoch = 0;
    int32_t base_sequence = 0;
    int records = 1;
    int64_t timestamp = test_now_ms;  // of the first record; +1 per record
    bool transactional = false;
};

inline bytes producer_batch(const producer_batch_spec& s) {
    record::batch_options o;
    o.producer_id = s.producer_id;
    o.producer_epoch = s.epoch;
    o.base_sequence = s.base_sequence;
    o.transactional = s.transactional;
    record::batch_builder b(o);
    for (int i = 0; i < s.records; ++i) {
        std::string v = "p" + std::to_string(s.producer_id) + "-" + std::to_string(i);
        b.add(s.timestamp + i, std::nullopt, as_bytes_view(v));
    }
    return std::move(*b.build());
}

inline bytes end_txn_marker(int64_t producer_id, int16_t epoch, bool commit,
                            int32_t coordinator_epoch, int64_t timestamp = test_now_ms) {
    return record::build_end_txn_marker_batch(
        producer_id, epoch, record::end_txn_marker{commit, coordinator_epoch}, timestamp);
}

}  // namespace samsa::storage::testing
