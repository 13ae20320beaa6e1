#pragma once
// producer_state_entry: what a partition remembers about one producer id
// (Kafka's ProducerStateEntry and BatchMetadata): its epoch, the metadata of
// its last batches, and the transaction it has open, if any.
//
// Sequence numbers are int32 and wrap from INT32_MAX to 0 (Kafka's
// DefaultRecordBatch.incrementSequence): a batch with base sequence
// INT32_MAX - 1 and three records holds sequences INT32_MAX - 1, INT32_MAX, 0.
//
// Invariant: batches are in append order, at most max_retained_batches of them,
// all written under `producer_epoch` (an epoch change clears them).
#include <cstdint>
#include <deque>
#include <optional>

#include "record/batch_header.h"

namespace samsa::storage {

// Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN: the producer keeps at most
// five requests in flight per partition, so a retry is of one of these.
inline constexpr size_t max_retained_batches = 5;

// `sequence` + `increment`, wrapping past INT32_MAX to 0.
int32_t increment_sequence(int32_t sequence, int32_t increment);
// `sequence` - `decrement`, wrapping below 0 to INT32_MAX.
int32_t decrement_sequence(int32_t sequence, int32_t decrement);
// Kafka's RecordBatch.lastSequence: no_sequence without a base sequence.
int32_t last_sequence_of(const record::batch_header& h);
// The sequence that must follow `last` (0 after INT32_MAX).
bool in_sequence(int32_t last, int32_t next);

// One appended batch of a producer.
struct batch_metadata {
    int32_t last_seq = record::no_sequence;
    int64_t last_offset = -1;
    int32_t offset_delta = 0;  // last offset - first offset
    int64_t timestamp = -1;    // the batch's max timestamp

    int32_t first_seq() const { return decrement_sequence(last_seq, offset_delta); }
    int64_t first_offset() const { return last_offset - offset_delta; }
    bool operator==(const batch_metadata&) const = default;
};

struct producer_state_entry {
    int64_t producer_id = record::no_producer_id;
    int16_t producer_epoch = record::no_producer_epoch;
    int32_t coordinator_epoch = -1;
    int64_t last_timestamp = -1;
    std::optional<int64_t> current_txn_first_offset;
    std::deque<batch_metadata> batches;

    bool empty() const { return batches.empty(); }
    int32_t first_seq() const {
        return empty() ? record::no_sequence : batches.front().first_seq();
    }
    int32_t last_seq() const { return empty() ? record::no_sequence : batches.back().last_seq; }
    int64_t last_data_offset() const { return empty() ? -1 : batches.back().last_offset; }
    int32_t last_offset_delta() const { return empty() ? 0 : batches.back().offset_delta; }

    // A new epoch forgets the batches of the old one. Returns whether it changed.
    bool maybe_update_epoch(int16_t epoch);
    // Records a batch written under `epoch`, dropping the oldest beyond five.
    void add_batch(int16_t epoch, int32_t last_seq, int64_t last_offset, int32_t offset_delta,
                   int64_t timestamp);
    // Folds in the state an append built on top of this entry.
    void update(const producer_state_entry& next);
    // The retained batch a retry of `h` repeats: same epoch, same first and last
    // sequence. nullopt when `h` is not a duplicate of one of them.
    std::optional<batch_metadata> find_duplicate(const record::batch_header& h) const;

    bool operator==(const producer_state_entry&) const = default;
};

}  // namespace samsa::storage
