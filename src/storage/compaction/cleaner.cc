#include "storage/compaction/cleaner.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>

#include "record/batch_builder.h"
#include "record/batch_iterator.h"
#include "record/control_record.h"
#include "storage/file_batch_reader.h"
#include "storage/segment_name.h"

namespace samsa::storage::compaction {

namespace {

error stopped() {
    return error{error_code::kafka_storage_error, "the cleaner is stopping"};
}

bool stopping(const cleaning_context& ctx) {
    return ctx.stop && ctx.stop->load(std::memory_order_relaxed);
}

// Aborted transactions met in offset order (Kafka's CleanedTransactionMetadata):
// a transactional batch is aborted data while its producer has an aborted
// transaction that started at or before it and whose ABORT marker is later.
class aborted_transactions {
  public:
    explicit aborted_transactions(const cleaning_plan& plan) {
        for (const auto& s : plan.segments) {
            _pending.insert(_pending.end(), s.aborted.begin(), s.aborted.end());
        }
        std::sort(_pending.begin(), _pending.end(), [](const aborted_txn& a, const aborted_txn& b) {
            return a.first_offset < b.first_offset;
        });
    }

    bool is_aborted_data(const record::batch_header& h) {
        advance(h.base_offset);
        if (!h.is_transactional() || h.is_control()) {
            return false;
        }
        auto it = _ongoing.find(h.producer_id);
        return it != _ongoing.end() && h.base_offset <= it->second.last_offset;
    }

    // The transaction an ABORT marker ends, when it is one of ours.
    std::optional<aborted_txn> on_abort_marker(const record::batch_header& h) {
        advance(h.base_offset);
        auto it = _ongoing.find(h.producer_id);
        if (it == _ongoing.end() || it->second.last_offset != h.base_offset) {
            return std::nullopt;
        }
        auto t = it->second;
        _ongoing.erase(it);
        return t;
    }

  private:
    void advance(int64_t offset) {
        while (_next < _pending.size() && _pending[_next].first_offset <= offset) {
            const auto& t = _pending[_next++];
            if (t.last_offset >= offset) {
                _ongoing[t.producer_id] = t;
            }
        }
    }

    std::vector<aborted_txn> _pending;
    size_t _next = 0;
    std::map<int64_t, aborted_txn> _ongoing;  // producer id -> transaction
};

// The first segment holding an offset >= `offset`.
size_t segment_from(const cleaning_plan& plan, int64_t offset) {
    size_t i = 0;
    while (i < plan.segments.size() && plan.segments[i].next_offset <= offset) {
        ++i;
    }
    return i;
}

// Walks the batches of one source segment, throttled, with their bytes.
template <typename Fn>
status for_each_batch(const source_segment& seg, const cleaning_context& ctx, cleaner_stats& stats,
                      Fn&& fn) {
    file_batch_reader reader(*seg.file, 0, seg.size_bytes, {.load_bytes = true});
    for (;;) {
        if (stopping(ctx)) {
            return stopped();
        }
        auto b = reader.next();
        if (!b) {
            return b.err();
        }
        if (!*b) {
            break;
        }
        stats.bytes_read += (*b)->size();
        stats.batches_read++;
        if (ctx.throttle) {
            ctx.throttle->maybe_throttle((*b)->size(), ctx.stop);
        }
        auto r = fn((*b)->header, reader.batch_bytes());
        if (!r) {
            return r.err();
        }
        if (!*r) {
            return {};  // the callback is done with this segment
        }
    }
    if (reader.stop() != scan_stop::end) {
        return error{error_code::corrupt_message, seg.file->path() + ": " + reader.stop_reason() +
                                                      " at position " +
                                                      std::to_string(reader.valid_end())};
    }
    return {};
}

// Segments rewritten together into one (Kafka's groupSegmentsBySize).
std::vector<std::vector<size_t>> group_segments(const cleaning_plan& plan, size_t count) {
    const auto& c = plan.config;
    const size_t max_index = size_t(c.segment_index_bytes / 8);
    const size_t max_time_index = size_t(c.segment_index_bytes / 12);
    std::vector<std::vector<size_t>> groups;
    size_t i = 0;
    while (i < count) {
        std::vector<size_t> group{i};
        const auto& first = plan.segments[i];
        int64_t bytes = first.size_bytes;
        size_t index = first.index_entries;
        size_t time_index = first.time_index_entries;
        size_t j = i + 1;
        while (j < count) {
            const auto& s = plan.segments[j];
            int64_t last = s.next_offset - 1;
            if (bytes + s.size_bytes > c.segment_bytes || bytes + s.size_bytes > max_segment_size ||
                index + s.index_entries + 1 > max_index ||
                time_index + s.time_index_entries + 1 > max_time_index ||
                last - first.base_offset > int64_t(std::numeric_limits<int32_t>::max())) {
                break;
            }
            bytes += s.size_bytes;
            index += s.index_entries;
            time_index += s.time_index_entries;
            group.push_back(j++);
        }
        groups.push_back(std::move(group));
        i = j;
    }
    return groups;
}

// Writes the kept batches of one group into its `.cleaned` segment.
class group_writer {
  public:
    group_writer(std::shared_ptr<log_segment> seg, cleaner_stats& stats,
                 const cleaning_context& ctx)
        : _seg(std::move(seg)), _stats(stats), _ctx(ctx) {}

    status add(bytes_view batch) {
        _buffer.insert(_buffer.end(), batch.begin(), batch.end());
        return _buffer.size() >= 1024 * 1024 ? drain() : status{};
    }
    status drain() {
        if (_buffer.empty()) {
            return {};
        }
        if (auto s = _seg->append(_buffer); !s) {
            return s;
        }
        _stats.bytes_written += int64_t(_buffer.size());
        if (_ctx.throttle) {
            _ctx.throttle->maybe_throttle(int64_t(_buffer.size()), _ctx.stop);
        }
        _buffer.clear();
        return {};
    }
    const std::shared_ptr<log_segment>& segment() const { return _seg; }

  private:
    std::shared_ptr<log_segment> _seg;
    cleaner_stats& _stats;
    const cleaning_context& _ctx;
    bytes _buffer;
};

record::batch_options options_of(const record::batch_header& h) {
    record::batch_options o;
    o.base_offset = h.base_offset;
    o.partition_leader_epoch = h.partition_leader_epoch;
    o.codec = h.compression();
    o.timestamp_type = h.timestamp_type();
    o.log_append_time = h.max_timestamp;
    o.producer_id = h.producer_id;
    o.producer_epoch = h.producer_epoch;
    o.base_sequence = h.base_sequence;
    o.transactional = h.is_transactional();
    o.control = h.is_control();
    o.last_offset_delta = h.last_offset_delta;
    if (h.has_delete_horizon()) {
        o.delete_horizon = h.base_timestamp;
    }
    return o;
}

// One batch's records, decided one by one.
struct batch_filter {
    record::record_iterator it;
    std::vector<record::record> kept;
    int32_t read = 0;
    bool kept_tombstone = false;
};

// The rules of the second pass, over the group's batches in offset order.
class batch_cleaner {
  public:
    batch_cleaner(const cleaning_plan& plan, const offset_map& map, int64_t map_end,
                  const cleaning_context& ctx, cleaner_stats& stats)
        : _plan(plan), _map(map), _map_end(map_end), _ctx(ctx), _stats(stats), _aborted(plan) {}

    // What to write for `batch`: nothing (dropped), the batch as it is, or a
    // rebuilt batch (in `rebuilt`). Sets `changed` when it is not as it is.
    enum class verdict { drop, keep, rebuilt };
    result<verdict> clean(const record::batch_header& h, bytes_view batch, bytes& rebuilt,
                          std::optional<aborted_txn>& txn_entry) {
        txn_entry.reset();
        const bool last_of_producer = h.has_producer_id() && [&] {
            auto it = _plan.producer_last_offsets.find(h.producer_id);
            return it != _plan.producer_last_offsets.end() && it->second == h.last_offset();
        }();
        if (h.is_control()) {
            return clean_marker(h, batch, rebuilt, txn_entry, last_of_producer);
        }
        if (_aborted.is_aborted_data(h)) {
            _stats.records_read += h.records_count;
            _stats.aborted_records_removed += h.records_count;
            return drop_or_empty(h, rebuilt, last_of_producer);
        }
        auto it = record::record_iterator::open(batch);
        if (!it) {
            return it.err();
        }
        batch_filter f{std::move(*it), {}, 0, false};
        record::record r;
        for (;;) {
            auto more = f.it.next(r);
            if (!more) {
                return more.err();
            }
            if (!*more) {
                break;
            }
            ++f.read;
            if (keep_record(h, f.it, r)) {
                f.kept_tombstone |= !r.value.has_value();
                f.kept.push_back(r);
            }
        }
        _stats.records_read += f.read;
        _stats.records_kept += int64_t(f.kept.size());
        if (h.is_transactional() && !f.kept.empty()) {
            _open_with_data.insert(h.producer_id);
        }
        const bool set_horizon = f.kept_tombstone && !h.has_delete_horizon();
        if (int32_t(f.kept.size()) == f.read && !set_horizon) {
            return verdict::keep;
        }
        if (f.kept.empty()) {
            return drop_or_empty(h, rebuilt, last_of_producer);
        }
        auto o = options_of(h);
        if (set_horizon) {
            o.delete_horizon = _ctx.now_ms + _plan.config.delete_retention_ms;
        }
        return rebuild(o, f, rebuilt);
    }

  private:
    bool keep_record(const record::batch_header& h, const record::record_iterator& it,
                     const record::record& r) {
        if (!r.key) {
            return false;  // a compacted topic takes no record without a key
        }
        const int64_t offset = it.offset_of(r);
        if (offset < _map_end) {
            int64_t latest = _map.get(*r.key);
            if (latest > offset) {
                return false;
            }
        }
        if (!r.value && h.has_delete_horizon() && _ctx.now_ms >= h.base_timestamp) {
            _stats.tombstones_removed++;
            return false;
        }
        return true;
    }

    result<verdict> clean_marker(const record::batch_header& h, bytes_view batch, bytes& rebuilt,
                                 std::optional<aborted_txn>& txn_entry, bool last_of_producer) {
        auto it = record::record_iterator::open(batch);
        if (!it) {
            return it.err();
        }
        record::record r;
        auto more = it->next(r);
        if (!more) {
            return more.err();
        }
        _stats.records_read += h.records_count;
        if (!*more) {
            return verdict::keep;  // an empty control batch: a producer's last, kept before
        }
        auto type = record::parse_control_record_key(r.key);
        if (!type || (*type != record::control_record_type::abort &&
                      *type != record::control_record_type::commit)) {
            _stats.records_kept += h.records_count;
            return verdict::keep;  // not a transaction marker: kept as it is
        }
        if (*type == record::control_record_type::abort) {
            txn_entry = _aborted.on_abort_marker(h);
        }
        const bool had_data = _open_with_data.erase(h.producer_id) > 0;
        if (had_data || !h.is_transactional()) {
            _stats.records_kept += h.records_count;
            return verdict::keep;
        }
        if (h.has_delete_horizon() && _ctx.now_ms >= h.base_timestamp) {
            _stats.markers_removed++;
            txn_entry.reset();
            return drop_or_empty(h, rebuilt, last_of_producer);
        }
        _stats.records_kept += h.records_count;
        if (h.has_delete_horizon()) {
            return verdict::keep;
        }
        auto o = options_of(h);
        o.delete_horizon = _ctx.now_ms + _plan.config.delete_retention_ms;
        batch_filter f{std::move(*it), {r}, 1, false};
        return rebuild(o, f, rebuilt);
    }

    result<verdict> drop_or_empty(const record::batch_header& h, bytes& rebuilt,
                                  bool last_of_producer) {
        if (!last_of_producer) {
            return verdict::drop;
        }
        auto o = options_of(h);
        o.codec = record::compression::none;
        auto b = record::batch_builder(o).build();
        if (!b) {
            return b.err();
        }
        rebuilt = std::move(*b);
        return verdict::rebuilt;
    }

    result<verdict> rebuild(const record::batch_options& o, const batch_filter& f, bytes& rebuilt) {
        record::batch_builder b(o);
        for (const auto& r : f.kept) {
            record::record_input in;
            in.timestamp = f.it.timestamp_of(r);
            in.key = r.key;
            in.value = r.value;
            in.headers = r.headers;
            in.offset_delta = r.offset_delta;
            b.add(in);
        }
        auto out = b.build();
        if (!out) {
            return out.err();
        }
        rebuilt = std::move(*out);
        return verdict::rebuilt;
    }

    const cleaning_plan& _plan;
    const offset_map& _map;
    int64_t _map_end;
    const cleaning_context& _ctx;
    cleaner_stats& _stats;
    aborted_transactions _aborted;
    std::set<int64_t> _open_with_data;  // producers whose open transaction kept data
};

void discard(std::vector<cleaned_segment>& done) {
    for (auto& c : done) {
        (void)c.segment->close();
        (void)c.segment->delete_files();
    }
    done.clear();
}

}  // namespace

int64_t cleaning_plan::total_bytes() const {
    int64_t n = 0;
    for (const auto& s : segments) {
        n += s.size_bytes;
    }
    return n;
}

int64_t cleaning_plan::dirty_bytes() const {
    int64_t n = 0;
    for (const auto& s : segments) {
        if (s.next_offset > first_dirty_offset) {
            n += s.size_bytes;
        }
    }
    return n;
}

double cleaning_plan::dirty_ratio() const {
    int64_t total = total_bytes();
    return total > 0 ? double(dirty_bytes()) / double(total) : 0.0;
}

bool cleaning_plan::compaction_lag_exceeded(int64_t now_ms) const {
    if (config.max_compaction_lag_ms == std::numeric_limits<int64_t>::max()) {
        return false;
    }
    size_t i = segment_from(*this, first_dirty_offset);
    if (i >= segments.size() || segments[i].size_bytes < int64_t(record::batch_header_size)) {
        return false;
    }
    // Kafka compares the first batch's timestamp.
    uint8_t header[record::batch_header_size];
    auto n = segments[i].file->pread_full(header, sizeof header, 0);
    if (!n || *n != sizeof header) {
        return false;
    }
    int64_t first_ts = record::decode_batch_header(header).max_timestamp;
    return first_ts >= 0 && now_ms - first_ts > config.max_compaction_lag_ms;
}

result<int64_t> build_offset_map(const cleaning_plan& plan, offset_map& map,
                                 const cleaning_context& ctx, cleaner_stats& stats) {
    map.clear();
    aborted_transactions aborted(plan);
    bool full = false;
    for (size_t i = segment_from(plan, plan.first_dirty_offset); i < plan.segments.size() && !full;
         ++i) {
        auto s =
            for_each_batch(plan.segments[i], ctx, stats,
                           [&](const record::batch_header& h, bytes_view batch) -> result<bool> {
                               if (h.last_offset() < plan.first_dirty_offset || h.is_control() ||
                                   aborted.is_aborted_data(h)) {
                                   return true;
                               }
                               auto it = record::record_iterator::open(batch);
                               if (!it) {
                                   return it.err();
                               }
                               record::record r;
                               for (;;) {
                                   auto more = it->next(r);
                                   if (!more) {
                                       return more.err();
                                   }
                                   if (!*more) {
                                       return true;
                                   }
                                   int64_t offset = it->offset_of(r);
                                   if (!r.key || offset < plan.first_dirty_offset) {
                                       continue;
                                   }
                                   if (!map.put(*r.key, offset)) {
                                       full = true;
                                       return false;
                                   }
                               }
                           });
        if (!s) {
            return s.err();
        }
    }
    stats.map_entries = int64_t(map.size());
    if (full) {
        return map.latest_offset() + 1;
    }
    return plan.segments.empty() ? plan.first_dirty_offset : plan.segments.back().next_offset;
}

result<cleaning_outcome> clean_log(const cleaning_plan& plan, offset_map& map,
                                   const cleaning_context& ctx) {
    const auto started = std::chrono::steady_clock::now();
    cleaning_outcome out;
    auto end = build_offset_map(plan, map, ctx, out.stats);
    if (!end) {
        return end.err();
    }
    out.cleaned_up_to = std::max(*end, plan.first_dirty_offset);
    size_t count = 0;
    while (count < plan.segments.size() && plan.segments[count].base_offset < *end) {
        ++count;
    }
    batch_cleaner cleaner(plan, map, *end, ctx, out.stats);
    for (const auto& group : group_segments(plan, count)) {
        const int64_t base = plan.segments[group.front()].base_offset;
        auto seg = log_segment::create(plan.dir, base, plan.config, ctx.now_ms, cleaned_suffix);
        if (!seg) {
            discard(out.segments);
            return seg.err();
        }
        out.segments.push_back({{}, *seg});
        group_writer writer(*seg, out.stats, ctx);
        bool changed = group.size() > 1;
        for (size_t i : group) {
            out.segments.back().replaces.push_back(plan.segments[i].base_offset);
            auto s = for_each_batch(
                plan.segments[i], ctx, out.stats,
                [&](const record::batch_header& h, bytes_view batch) -> result<bool> {
                    bytes rebuilt;
                    std::optional<aborted_txn> entry;
                    auto v = cleaner.clean(h, batch, rebuilt, entry);
                    if (!v) {
                        return v.err();
                    }
                    changed |= *v != batch_cleaner::verdict::keep;
                    status st;
                    if (*v == batch_cleaner::verdict::keep) {
                        st = writer.add(batch);
                    } else if (*v == batch_cleaner::verdict::rebuilt) {
                        st = writer.add(rebuilt);
                    }
                    if (st && entry) {
                        // Entries follow their markers' bytes into the segment.
                        st = writer.drain();
                        if (st) {
                            st = (*seg)->append_aborted_txn(*entry);
                        }
                    }
                    if (!st) {
                        return st.err();
                    }
                    return true;
                });
            if (!s) {
                discard(out.segments);
                return s.err();
            }
        }
        status st = writer.drain();
        if (st) {
            st = (*seg)->on_become_inactive();
        }
        if (st && !changed) {
            // Nothing to swap: the segment is as it was.
            (void)(*seg)->close();
            st = (*seg)->delete_files();
            out.segments.pop_back();
            if (!st) {
                discard(out.segments);
                return st.err();
            }
            continue;
        }
        if (st) {
            st = (*seg)->flush();
        }
        if (!st) {
            discard(out.segments);
            return st.err();
        }
    }
    out.stats.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - started)
                                .count();
    return out;
}

}  // namespace samsa::storage::compaction
