#include "storage/producer_state_entry.h"

#include <limits>

namespace samsa::storage {

namespace {
constexpr int32_t int32_max = std::numeric_limits<int32_t>::max();
}

int32_t increment_sequence(int32_t sequence, int32_t increment) {
    if (sequence > int32_max - increment) {
        return increment - (int32_max - sequence) - 1;
    }
    return sequence + increment;
}

int32_t decrement_sequence(int32_t sequence, int32_t decrement) {
    if (sequence < decrement) {
        return int32_max - (decrement - sequence) + 1;
    }
    return sequence - decrement;
}

int32_t last_sequence_of(const record::batch_header& h) {
    if (h.base_sequence == record::no_sequence) {
        return record::no_sequence;
    }
    return increment_sequence(h.base_sequence, h.last_offset_delta);
}

bool in_sequence(int32_t last, int32_t next) {
    return int64_t(next) == int64_t(last) + 1 || (next == 0 && last == int32_max);
}

bool producer_state_entry::maybe_update_epoch(int16_t epoch) {
    if (producer_epoch == epoch) {
        return false;
    }
    batches.clear();
    producer_epoch = epoch;
    return true;
}

void producer_state_entry::add_batch(int16_t epoch, int32_t last_seq, int64_t last_offset,
                                     int32_t offset_delta, int64_t timestamp) {
    maybe_update_epoch(epoch);
    if (batches.size() == max_retained_batches) {
        batches.pop_front();
    }
    batches.push_back(batch_metadata{last_seq, last_offset, offset_delta, timestamp});
    last_timestamp = timestamp;
}

void producer_state_entry::update(const producer_state_entry& next) {
    maybe_update_epoch(next.producer_epoch);
    coordinator_epoch = next.coordinator_epoch;
    last_timestamp = next.last_timestamp;
    current_txn_first_offset = next.current_txn_first_offset;
    for (const auto& b : next.batches) {
        if (batches.size() == max_retained_batches) {
            batches.pop_front();
        }
        batches.push_back(b);
    }
}

std::optional<batch_metadata> producer_state_entry::find_duplicate(
    const record::batch_header& h) const {
    if (h.producer_epoch != producer_epoch) {
        return std::nullopt;
    }
    const int32_t last = last_sequence_of(h);
    for (const auto& b : batches) {
        if (b.first_seq() == h.base_sequence && b.last_seq == last) {
            return b;
        }
    }
    return std::nullopt;
}

}  // namespace samsa::storage
