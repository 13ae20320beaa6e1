// log: opening a partition directory — leftovers removed, segments loaded or
// recovered (docs/formats/segment.md, "Recovery"), offsets restored from the
// checkpoints, producer state loaded (log_producer_state.cc).
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "common/logging/loggers.h"
#include "storage/file_batch_reader.h"
#include "storage/log.h"
#include "storage/partition_metadata.h"
#include "storage/segment_name.h"

namespace samsa::storage {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

status unlink_if_exists(const std::string& p) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
        return io_error("unlink", p, errno);
    }
    return {};
}

// One past the last offset of the batches in `path` (`base` when none).
result<int64_t> next_offset_of(const std::string& path, int64_t base) {
    auto f = file_handle::open(path, O_RDONLY);
    if (!f) {
        return f.err();
    }
    auto size = f->size();
    if (!size) {
        return size.err();
    }
    file_batch_reader reader(*f, 0, *size);
    int64_t next = base;
    for (;;) {
        auto b = reader.next();
        if (!b) {
            return b.err();
        }
        if (!*b) {
            return next;
        }
        next = (*b)->header.last_offset() + 1;
    }
}

}  // namespace

// A `<base>.log.swap` is a cleaned segment whose swap a crash interrupted: its
// data was made durable before it was named .swap, so the swap is finished as
// Kafka's LogLoader does: the segments it replaces (those with a base offset in
// [base, its next offset)) go, and it takes their place, re-checked as a
// recovered segment. Other .swap and .cleaned files are removed afterwards.
status log::complete_swaps() {
    std::vector<int64_t> swaps;
    std::vector<int64_t> logs;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(_dir, ec)) {
        std::string name = entry.path().filename().string();
        if (ends_with(name, swap_suffix)) {
            auto stem = name.substr(0, name.size() - swap_suffix.size());
            if (auto b = parse_segment_file_name(stem, log_suffix)) {
                swaps.push_back(*b);
            }
        } else if (auto b = parse_segment_file_name(name, log_suffix)) {
            logs.push_back(*b);
        }
    }
    if (ec) {
        return error{error_code::kafka_storage_error, "list " + _dir + ": " + ec.message()};
    }
    std::sort(swaps.begin(), swaps.end());
    for (int64_t base : swaps) {
        const std::string swap_log =
            path_join(_dir, segment_file_name(base, log_suffix)) + std::string(swap_suffix);
        auto next = next_offset_of(swap_log, base);
        if (!next) {
            return next.err();
        }
        for (int64_t old : logs) {
            if (old != base && (old < base || old >= *next)) {
                continue;
            }
            for (auto kind : {log_suffix, index_suffix, time_index_suffix, txn_index_suffix}) {
                if (auto s = unlink_if_exists(path_join(_dir, segment_file_name(old, kind))); !s) {
                    return s;
                }
            }
        }
        for (auto kind : {index_suffix, time_index_suffix, txn_index_suffix, log_suffix}) {
            auto final_path = path_join(_dir, segment_file_name(base, kind));
            auto from = final_path + std::string(swap_suffix);
            if (::rename(from.c_str(), final_path.c_str()) != 0 && errno != ENOENT) {
                return io_error("rename", from, errno);
            }
        }
        _swapped_in.insert(base);
        logging::storage().warn(
            "event=log_swap_completed partition={} segment={} next_offset={} reason=\"a cleaning "
            "was interrupted mid-swap\"",
            _tp.to_string(), base, *next);
    }
    if (!swaps.empty()) {
        return fsync_dir(_dir);
    }
    return {};
}

result<std::shared_ptr<log>> log::open(log_open_options o) {
    std::error_code ec;
    bool existed = fs::exists(o.dir, ec);
    if (!existed) {
        fs::create_directories(o.dir, ec);
        if (ec) {
            return error{error_code::kafka_storage_error, "create " + o.dir + ": " + ec.message()};
        }
        auto parent = fs::path(o.dir).parent_path().string();
        if (auto s = fsync_dir(parent.empty() ? "." : parent); !s) {
            return s.err();
        }
    }
    auto epochs = leader_epoch_cache::load(path_join(o.dir, leader_epoch_checkpoint_file));
    if (!epochs) {
        return epochs.err();
    }
    std::shared_ptr<log> l(new log(o, std::move(*epochs)));
    if (auto s = l->load(o); !s) {
        return s.err();
    }
    return l;
}

status log::load(const log_open_options& o) {
    // partition.metadata: the directory must belong to this topic id.
    auto meta_path = path_join(_dir, partition_metadata_file);
    auto stored = read_partition_metadata(meta_path);
    if (!stored) {
        return stored.err();
    }
    if (*stored && _topic_id && **stored != *_topic_id) {
        return error{error_code::inconsistent_topic_id, _dir + " holds topic id " +
                                                            (*stored)->to_string() + ", expected " +
                                                            _topic_id->to_string()};
    }
    if (*stored) {
        _topic_id = **stored;
    } else if (_topic_id) {
        if (auto s = write_partition_metadata(meta_path, *_topic_id); !s) {
            return s;
        }
    }

    // A cleaning interrupted mid-swap is completed first (docs/compaction.md).
    if (auto s = complete_swaps(); !s) {
        return s;
    }
    // Leftovers of deletes and compaction go; orphan indexes go; .log files are
    // the segments.
    std::vector<int64_t> bases;
    std::vector<std::string> orphans;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(_dir, ec)) {
        std::string name = entry.path().filename().string();
        if (ends_with(name, deleted_suffix) || ends_with(name, cleaned_suffix) ||
            ends_with(name, swap_suffix) || ends_with(name, ".tmp")) {
            orphans.push_back(entry.path().string());
        } else if (auto b = parse_segment_file_name(name, log_suffix)) {
            bases.push_back(*b);
        }
    }
    if (ec) {
        return error{error_code::kafka_storage_error, "list " + _dir + ": " + ec.message()};
    }
    std::sort(bases.begin(), bases.end());
    for (const auto& entry : fs::directory_iterator(_dir, ec)) {
        std::string name = entry.path().filename().string();
        for (auto suffix : {index_suffix, time_index_suffix, txn_index_suffix}) {
            auto b = parse_segment_file_name(name, suffix);
            if (b && !std::binary_search(bases.begin(), bases.end(), *b)) {
                orphans.push_back(entry.path().string());
            }
        }
    }
    for (const auto& p : orphans) {
        if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
            return io_error("unlink", p, errno);
        }
    }

    int64_t checkpoint_rp = o.recovery_point;
    std::vector<epoch_entry> recovered_epochs;
    for (size_t i = 0; i < bases.size(); ++i) {
        int64_t base = bases[i];
        bool last = i + 1 == bases.size();
        // A segment holds offsets in [base, next base): it needs recovery when
        // that range reaches the recovery point.
        bool needs_recovery = (!o.had_clean_shutdown && (last || bases[i + 1] > checkpoint_rp)) ||
                              _swapped_in.count(base) > 0;
        segment_recovery rec;
        auto seg = log_segment::open(_dir, base, _config, o.now_ms, last, needs_recovery, &rec);
        if (!seg) {
            return seg.err();
        }
        if (!_segments.empty() && base < _segments.rbegin()->second->next_offset()) {
            return error{
                error_code::kafka_storage_error,
                "segment " + std::to_string(base) + " overlaps the previous one in " + _dir};
        }
        _load_report.segments++;
        _load_report.segments_recovered += needs_recovery ? 1 : 0;
        _segments.emplace(base, *seg);
        recovered_epochs.insert(recovered_epochs.end(), rec.epoch_starts.begin(),
                                rec.epoch_starts.end());
        if (rec.truncated_bytes > 0) {
            _load_report.bytes_truncated += rec.truncated_bytes;
            if (_load_report.first_truncation_reason.empty()) {
                _load_report.first_truncation_reason = rec.reason;
            }
            const std::string seg_path = path_join(_dir, segment_file_name(base, log_suffix));
            _load_report.cuts.push_back({seg_path, rec.valid_bytes, rec.truncated_bytes,
                                         rec.next_offset, rec.reason, rec.corrupt, rec.kept_as});
            // Everything after an invalid batch is suspect, so the log ends
            // there (Kafka drops later segments). Their .log files are kept,
            // renamed .corrupt, since they may hold acknowledged records.
            for (size_t j = i + 1; j < bases.size(); ++j) {
                for (auto suffix :
                     {log_suffix, index_suffix, time_index_suffix, txn_index_suffix}) {
                    auto p = path_join(_dir, segment_file_name(bases[j], suffix));
                    if (suffix == log_suffix) {
                        auto size = fs::file_size(p, ec);
                        if (ec) {
                            continue;
                        }
                        auto kept =
                            p + "." + std::to_string(o.now_ms) + std::string(corrupt_suffix);
                        if (::rename(p.c_str(), kept.c_str()) != 0) {
                            return io_error("rename", p, errno);
                        }
                        _load_report.bytes_truncated += int64_t(size);
                        _load_report.cuts.push_back({p, 0, int64_t(size), bases[j],
                                                     "after the cut in " + seg_path, rec.corrupt,
                                                     kept});
                        continue;
                    }
                    if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
                        return io_error("unlink", p, errno);
                    }
                }
            }
            if (!last) {
                if (auto s = (*seg)->on_become_active(); !s) {
                    return s;
                }
            }
            break;
        }
    }
    if (_segments.empty()) {
        int64_t start = std::max<int64_t>(0, o.log_start_offset);
        auto seg = log_segment::create(_dir, start, _config, o.now_ms);
        if (!seg) {
            return seg.err();
        }
        _segments.emplace(start, *seg);
        _dir_dirty = true;
    }
    _log_end_offset = active()->next_offset();
    set_log_start_offset(
        std::min(std::max(o.log_start_offset, _segments.begin()->first), _log_end_offset));
    // Recovered data is made durable now, so the recovery point is the LEO.
    if (o.had_clean_shutdown) {
        set_recovery_point(_log_end_offset);
    } else {
        set_recovery_point(std::min(checkpoint_rp, _log_end_offset));
        if (auto s = flush(); !s) {
            return s;
        }
    }
    set_high_watermark(o.high_watermark);
    if (auto s = _epochs.truncate_from_end(_log_end_offset); !s) {
        return s;
    }
    if (auto s = _epochs.truncate_from_start(_log_start_offset); !s) {
        return s;
    }
    // The recovered batches name their leader epochs: one the checkpoint
    // lacks (its write failed, or the crash came between the two) is added,
    // so that OffsetForLeaderEpoch and a follower's truncation never take
    // these records for an older epoch's (Kafka's LogSegment.recover).
    for (const auto& e : recovered_epochs) {
        if (e.start_offset >= _log_start_offset &&
            (!_epochs.latest_epoch() || e.epoch > *_epochs.latest_epoch())) {
            if (auto s = _epochs.assign(e.epoch, e.start_offset); !s) {
                return s;
            }
        }
    }
    return load_producer_state(o.now_ms);
}

}  // namespace samsa::storage
