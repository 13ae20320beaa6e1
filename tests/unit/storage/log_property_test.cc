// Property test: random appends, reads, truncations, DeleteRecords, retention,
// rolls and reopens of a log, checked after every step against an in-memory
// model. Seeded; the seed is printed on failure. Replay one with
// SAMSA_PROPERTY_SEED=<seed>.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

#include "storage/log.h"
#include "storage/temp_dir.h"
#include "storage/test_batches.h"

namespace samsa::storage {
namespace {

using testing::make_batch;
using testing::temp_dir;

struct model_batch {
    bytes data;  // as stamped by the log
    int64_t base_offset;
    int64_t last_offset;
    int64_t base_timestamp;
    int64_t timestamp_step;
};

struct model {
    std::map<int64_t, model_batch> batches;  // by base offset
    int64_t log_start = 0;
    int64_t log_end = 0;
    int64_t high_watermark = 0;

    // The batch holding `offset`, or the first after it.
    const model_batch* batch_from(int64_t offset) const {
        auto it = batches.upper_bound(offset);
        if (it != batches.begin() && std::prev(it)->second.last_offset >= offset) {
            return &std::prev(it)->second;
        }
        return it == batches.end() ? nullptr : &it->second;
    }
    void drop_below(int64_t offset) {
        while (!batches.empty() && batches.begin()->second.last_offset < offset) {
            batches.erase(batches.begin());
        }
    }
    // First record at or after log start with timestamp >= target.
    std::optional<int64_t> offset_for_timestamp(int64_t target) const {
        for (const auto& [base, b] : batches) {
            for (int64_t o = b.base_offset; o <= b.last_offset; ++o) {
                int64_t ts = b.base_timestamp + (o - b.base_offset) * b.timestamp_step;
                if (o >= log_start && ts >= target) {
                    return o;
                }
            }
        }
        return std::nullopt;
    }
};

class property_run {
  public:
    explicit property_run(uint64_t seed) : _rng(seed) {
        _config.segment_bytes = 10000 + int64_t(_rng() % 10000);
        _config.index_interval_bytes = int32_t(_rng() % 1024);
        _config.segment_index_bytes = 8 * (2 + int64_t(_rng() % 40));
        _config.retention_ms = -1;
        _config.file_delete_delay_ms = 0;
        _log = open(false);
    }

    void run(int steps) {
        for (int step = 0; step < steps && !::testing::Test::HasFatalFailure(); ++step) {
            SCOPED_TRACE("step " + std::to_string(step));
            int op = int(_rng() % 100);
            if (op < 45) {
                do_append();
            } else if (op < 55) {
                _m.high_watermark = pick(_m.log_start, _m.log_end);
                _log->update_high_watermark(_m.high_watermark);
            } else if (op < 62) {
                do_truncate();
            } else if (op < 67) {
                do_delete_records();
            } else if (op < 73) {
                do_retention();
            } else if (op < 77) {
                ASSERT_TRUE(_log->roll(_now));
            } else if (op < 81) {
                do_reopen();
            } else if (op < 83) {
                do_truncate_fully();
            } else {
                check_timestamp_lookup();
            }
            check_state();
            check_reads();
            check_bounded_read();
        }
        EXPECT_TRUE(_log->close());
    }

  private:
    int64_t pick(int64_t lo, int64_t hi) {  // inclusive
        return hi <= lo ? lo : lo + int64_t(_rng() % uint64_t(hi - lo + 1));
    }

    std::shared_ptr<log> open(bool clean) {
        log_open_options o;
        o.dir = _dir.file("p-0");
        o.tp = {"p", 0};
        o.config = _config;
        o.deletions = _deletions;
        o.had_clean_shutdown = clean;
        if (_log) {
            o.recovery_point = _log->recovery_point_snapshot();
            o.log_start_offset = _log->log_start_offset_snapshot();
            o.high_watermark = _log->high_watermark_snapshot();
        }
        auto l = log::open(o);
        EXPECT_TRUE(l.has_value()) << (l ? "" : l.err().message);
        return l ? *l : nullptr;
    }

    void do_append() {
        int records = 1 + int(_rng() % 6);
        int64_t ts = 1000 + int64_t(_rng() % 100000);
        int64_t step = int64_t(_rng() % 5);
        auto b = make_batch({.base_offset = 0,
                             .records = records,
                             .value_size = 10 + _rng() % 1500,
                             .base_timestamp = ts,
                             .timestamp_step = step,
                             .fill = uint8_t(_rng())});
        auto r = _log->append_as_leader(b, int32_t(_epoch), _now);
        ASSERT_TRUE(r) << error_name(r.code()) << " " << r.err().message;
        ASSERT_EQ(r->first_offset, _m.log_end);
        _m.batches[r->first_offset] = {b, r->first_offset, r->last_offset, ts, step};
        _m.log_end = r->last_offset + 1;
        if (_rng() % 10 == 0) {
            ++_epoch;
        }
    }

    void do_truncate() {
        int64_t target = pick(_m.log_start, _m.log_end);
        ASSERT_TRUE(_log->truncate_to(target, _now));
        if (target >= _m.log_end) {
            return;
        }
        while (!_m.batches.empty() && _m.batches.rbegin()->second.last_offset >= target) {
            _m.batches.erase(std::prev(_m.batches.end()));
        }
        // The log ends after the last whole batch below the target; with none
        // left it is an empty segment's base, at most the target.
        int64_t leo = _log->log_end_offset();
        if (!_m.batches.empty()) {
            ASSERT_EQ(leo, _m.batches.rbegin()->second.last_offset + 1);
        } else {
            ASSERT_LE(leo, target);
        }
        _m.log_end = leo;
        _m.log_start = std::min(_m.log_start, leo);
        _m.high_watermark = std::min(_m.high_watermark, leo);
        for (const auto& e : _log->leader_epochs().entries()) {
            ASSERT_LT(e.start_offset, leo);
        }
    }

    void do_truncate_fully() {
        int64_t start = _m.log_end + int64_t(_rng() % 50);
        ASSERT_TRUE(_log->truncate_fully_and_start_at(start, _now));
        _m = model{};
        _m.log_start = _m.log_end = _m.high_watermark = start;
    }

    void do_delete_records() {
        int64_t target = pick(_m.log_start, _m.high_watermark + 1);
        auto r = _log->delete_records_before(target, _now);
        if (target > _m.high_watermark) {
            ASSERT_EQ(r.code(), error_code::offset_out_of_range);
            return;
        }
        ASSERT_TRUE(r) << r.err().message;
        _m.log_start = std::max(_m.log_start, target);
        ASSERT_EQ(*r, _m.log_start);
        _m.drop_below(_m.log_start);
    }

    void do_retention() {
        log_config c = _config;
        c.retention_bytes = _rng() % 2 ? int64_t(_rng() % 20000) : -1;
        _log->update_config(c);
        size_t active_size = size_t(_log->active_segment().size_bytes());
        auto n = _log->delete_old_segments(_now);
        ASSERT_TRUE(n) << n.err().message;
        _log->update_config(_config);
        // Retention only moves the start forward, to a segment base, never past
        // the high watermark.
        int64_t lso = _log->log_start_offset();
        ASSERT_GE(lso, _m.log_start);
        ASSERT_LE(lso, std::max(_m.high_watermark, _m.log_start));
        if (*n > 0) {
            ASSERT_EQ(lso, _log->segments().front()->base_offset());
            if (c.retention_bytes >= 0) {
                // Deleting had to stop before dropping below the limit, at the
                // high watermark, or at the active segment.
                ASSERT_TRUE(_log->size_bytes() - _log->segments().front()->size_bytes() <
                                c.retention_bytes ||
                            _log->segment_count() == 1 ||
                            _log->segments()[1]->base_offset() > _m.high_watermark ||
                            size_t(_log->active_segment().size_bytes()) == active_size);
            }
        }
        _m.log_start = lso;
        _m.drop_below(lso);
        ASSERT_TRUE(_deletions->run_all());
    }

    void do_reopen() {
        bool clean = _rng() % 2;
        if (clean) {
            ASSERT_TRUE(_log->close());
        }
        auto next = open(clean);
        _log.reset();
        _log = next;
        ASSERT_TRUE(_log);
        // The checkpointed high watermark comes back.
        ASSERT_EQ(_log->high_watermark(), _m.high_watermark);
    }

    void check_state() {
        ASSERT_EQ(_log->log_end_offset(), _m.log_end);
        ASSERT_EQ(_log->log_start_offset(), _m.log_start);
        ASSERT_EQ(_log->high_watermark(), _m.high_watermark);
        ASSERT_LE(_log->recovery_point(), _log->log_end_offset());
    }

    void check_reads() {
        ASSERT_EQ(_log->read(kafka_offset{_m.log_end + 1}, 100, std::nullopt, false).code(),
                  error_code::offset_out_of_range);
        if (_m.log_start > 0) {
            ASSERT_EQ(_log->read(kafka_offset{_m.log_start - 1}, 100, std::nullopt, false).code(),
                      error_code::offset_out_of_range);
        }
        // A random start and a full scan: every batch byte for byte, in order.
        int64_t from = pick(_m.log_start, _m.log_end);
        int64_t next = from;
        while (next < _m.log_end) {
            auto r = _log->read(kafka_offset{next}, 1 << 20, std::nullopt, true);
            ASSERT_TRUE(r) << r.err().message;
            auto data = r->records.read();
            ASSERT_TRUE(data);
            const model_batch* b = _m.batch_from(next);
            ASSERT_NE(b, nullptr);
            ASSERT_FALSE(data->empty()) << "nothing read at " << next;
            size_t pos = 0;
            while (pos < data->size() && b) {
                ASSERT_LE(pos + b->data.size(), data->size());
                ASSERT_TRUE(
                    std::equal(b->data.begin(), b->data.end(), data->begin() + int64_t(pos)))
                    << "batch " << b->base_offset << " differs";
                pos += b->data.size();
                next = b->last_offset + 1;
                b = _m.batch_from(next);
            }
            if (next == from) {
                break;
            }
            from = next;
            if (_rng() % 2) {
                break;  // a full scan only half of the time
            }
        }
    }

    // A consumer's read, bounded by the high watermark: whole batches below it
    // only, a prefix of what the model holds from `from` on.
    void check_bounded_read() {
        int64_t from = pick(_m.log_start, _m.log_end);
        auto r = _log->read(kafka_offset{from}, 1 << 20, kafka_offset{_m.high_watermark}, false);
        ASSERT_TRUE(r) << r.err().message;
        auto data = r->records.read();
        ASSERT_TRUE(data);
        const model_batch* b = _m.batch_from(from);
        bool any_below = b && b->last_offset < _m.high_watermark && from < _m.high_watermark;
        ASSERT_EQ(data->empty(), !any_below) << "from " << from << " hw " << _m.high_watermark;
        size_t pos = 0;
        while (pos < data->size()) {
            ASSERT_NE(b, nullptr);
            ASSERT_LT(b->last_offset, _m.high_watermark);
            ASSERT_LE(pos + b->data.size(), data->size());
            ASSERT_TRUE(std::equal(b->data.begin(), b->data.end(), data->begin() + int64_t(pos)));
            pos += b->data.size();
            b = _m.batch_from(b->last_offset + 1);
        }
    }

    void check_timestamp_lookup() {
        int64_t target = 1000 + int64_t(_rng() % 110000);
        auto r = _log->offset_for_timestamp(target);
        ASSERT_TRUE(r) << r.err().message;
        auto expected = _m.offset_for_timestamp(target);
        ASSERT_EQ(r->has_value(), expected.has_value()) << "timestamp " << target;
        if (expected) {
            ASSERT_EQ((*r)->offset, *expected) << "timestamp " << target;
        }
    }

    std::mt19937_64 _rng;
    temp_dir _dir;
    log_config _config;
    std::shared_ptr<deletion_queue> _deletions = std::make_shared<deletion_queue>();
    std::shared_ptr<log> _log;
    model _m;
    int64_t _now = 0;
    uint64_t _epoch = 0;
};

TEST(log_property, random_operations_match_the_model) {
    std::vector<uint64_t> seeds;
    if (const char* s = std::getenv("SAMSA_PROPERTY_SEED")) {
        seeds.push_back(std::strtoull(s, nullptr, 10));
    } else {
        std::random_device rd;
        for (int i = 0; i < 12; ++i) {
            seeds.push_back((uint64_t(rd()) << 32) | rd());
        }
    }
    for (uint64_t seed : seeds) {
        SCOPED_TRACE("seed=" + std::to_string(seed) +
                     " (replay: SAMSA_PROPERTY_SEED=" + std::to_string(seed) + ")");
        property_run(seed).run(400);
        if (::testing::Test::HasFailure()) {
            break;
        }
    }
}

}  // namespace
}  // namespace samsa::storage
