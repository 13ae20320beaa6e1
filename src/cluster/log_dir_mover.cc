#include "cluster/log_dir_mover.h"

#include <algorithm>

#include "common/bytes.h"

namespace samsa::cluster {

namespace {

// A batch's size from its header: base offset (8), batch length (4), then
// batch length bytes.
constexpr size_t batch_length_end = 12;

// The length of the whole batches at the front of `b` (a read may end inside
// a batch, as one sent to a consumer does).
size_t whole_batches(bytes_view b) {
    size_t pos = 0;
    while (b.size() - pos >= batch_length_end) {
        const size_t size = batch_length_end + load_be32(b.data() + pos + 8);
        if (size > b.size() - pos) {
            break;
        }
        pos += size;
    }
    return pos;
}

}  // namespace

status align_future(const storage::log& current, storage::log& future, int64_t now_ms) {
    if (current.log_start_offset() > future.log_end_offset()) {
        return future.truncate_fully_and_start_at(current.log_start_offset(), now_ms);
    }
    // Where the two agree, by the epochs (Kafka's follower truncation): our
    // latest epoch's end in the current log, and our own end of the epoch
    // found there.
    int64_t agreed = std::min(future.log_end_offset(), current.log_end_offset());
    if (auto epoch = future.leader_epochs().latest_epoch()) {
        auto theirs = current.leader_epochs().end_offset_for(*epoch, current.log_end_offset());
        if (theirs.epoch < 0) {
            agreed = std::min(agreed, current.log_start_offset());
        } else {
            auto mine =
                future.leader_epochs().end_offset_for(theirs.epoch, future.log_end_offset());
            agreed = std::min({agreed, theirs.start_offset, mine.start_offset});
        }
    }
    if (agreed < future.log_end_offset()) {
        if (auto s = future.truncate_to(agreed, now_ms); !s) {
            return s;
        }
    }
    future.update_high_watermark(std::min(current.high_watermark(), future.log_end_offset()));
    if (current.log_start_offset() > future.log_start_offset() &&
        current.log_start_offset() <= future.high_watermark()) {
        auto moved = future.delete_records_before(current.log_start_offset(), now_ms);
        if (!moved) {
            return moved.err();
        }
    }
    return {};
}

result<move_step> copy_to_future(partition& p, storage::log_manager& logs, storage::log& future,
                                 int64_t max_bytes, int64_t now_ms) {
    storage::log& current = *p.log();
    if (current.failure()) {
        return *current.failure();
    }
    if (auto s = align_future(current, future, now_ms); !s) {
        return s.err();
    }
    move_step step;
    if (future.log_end_offset() < current.log_end_offset()) {
        auto read = current.read(kafka_offset(future.log_end_offset()), max_bytes, std::nullopt,
                                 /*min_one_message=*/true);
        if (!read) {
            return read.err();
        }
        auto b = read->records.read();
        if (!b) {
            return b.err();
        }
        const size_t whole = whole_batches(bytes_view(b->data(), b->size()));
        if (whole > 0) {
            auto appended = future.append_as_follower(bytes_view(b->data(), whole), now_ms);
            if (!appended) {
                return appended.err();
            }
            step.bytes = int64_t(whole);
        }
        future.update_high_watermark(std::min(current.high_watermark(), future.log_end_offset()));
    }
    if (future.log_end_offset() != current.log_end_offset()) {
        step.state = move_state::copying;
        return step;
    }
    // Caught up. A flush in flight syncs a directory by its name, and
    // closing the current log fails its durable-ack waiters: both wait.
    if (future.flush_in_progress() || current.flush_in_progress()) {
        step.state = move_state::caught_up;
        return step;
    }
    auto moved = logs.replace_current_with_future(p.tp(), now_ms);
    if (!moved) {
        return moved.err();
    }
    p.replace_log(std::move(*moved));
    step.state = move_state::moved;
    return step;
}

}  // namespace samsa::cluster
