#pragma once
// A compacted partition log for cleaner tests: keyed writes (one batch per
// call), rolls, a cleaning run on the calling thread, and a read of
// everything a consumer fetching from the log start would see.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/batch_iterator.h"
#include "storage/compaction/cleaner.h"
#include "storage/log.h"
#include "storage/producer_batches.h"
#include "storage/temp_dir.h"

namespace samsa::storage::testing {

struct kv {
    std::string key;
    std::optional<std::string> value;  // nullopt: a tombstone
};

struct read_record {
    int64_t offset;
    std::optional<std::string> key;
    std::optional<std::string> value;
    int64_t timestamp;
    std::vector<std::pair<std::string, std::string>> headers;
    bool control = false;
};

struct compaction_fixture : ::testing::Test {
    temp_dir root;
    std::string dir = root.file("compacted-0");
    int64_t now_ms = test_now_ms;
    log_config config = [] {
        log_config c;
        c.segment_bytes = 1 << 20;
        c.segment_index_bytes = 64 * 1024;
        c.cleanup_compact = true;
        c.cleanup_delete = false;
        c.min_cleanable_dirty_ratio = 0.0;
        c.delete_retention_ms = 1000;
        return c;
    }();
    std::shared_ptr<log> l;

    void SetUp() override { l = open_log(); }

    std::shared_ptr<log> open_log(bool clean_shutdown = false) {
        log_open_options o;
        o.dir = dir;
        o.tp = {"compacted", 0};
        o.config = config;
        o.now_ms = now_ms;
        o.had_clean_shutdown = clean_shutdown;
        auto r = log::open(o);
        EXPECT_TRUE(r) << (r ? "" : r.err().message);
        return r ? *r : nullptr;
    }
    void reopen() {
        ASSERT_TRUE(l->close());
        l = open_log(true);
    }

    // One batch of `records` (codec as given); returns its first offset.
    int64_t write(const std::vector<kv>& records,
                  record::compression codec = record::compression::none,
                  const std::vector<record::record_header>& headers = {}) {
        record::batch_options o;
        o.codec = codec;
        record::batch_builder b(o);
        for (const auto& r : records) {
            std::optional<bytes_view> v;
            if (r.value) {
                v = as_bytes_view(*r.value);
            }
            b.add(now_ms, as_bytes_view(r.key), v, headers);
        }
        auto batch = b.build();
        EXPECT_TRUE(batch);
        auto a = l->append_as_leader(*batch, 0, now_ms);
        EXPECT_TRUE(a) << (a ? "" : a.err().message);
        l->update_high_watermark(l->log_end_offset());
        return a ? a->first_offset : -1;
    }
    int64_t put(const std::string& k, const std::string& v) { return write({{k, v}}); }
    int64_t del(const std::string& k) { return write({{k, std::nullopt}}); }
    void roll() { ASSERT_TRUE(l->roll(now_ms)); }
    // Appends a raw batch (a producer's, a marker) as the leader.
    int64_t append(bytes batch, record::append_origin origin = record::append_origin::client) {
        auto a = l->append_as_leader(batch, 0, now_ms, origin);
        EXPECT_TRUE(a) << (a ? "" : a.err().message);
        l->update_high_watermark(l->log_end_offset());
        return a ? a->first_offset : -1;
    }

    // One cleaning as the cleaner thread does it: plan, clean, swap.
    compaction::cleaning_outcome clean(int64_t first_dirty = 0) {
        auto plan = l->plan_cleaning(first_dirty, now_ms);
        compaction::offset_map map(1 << 20, 0.9);
        compaction::cleaning_context ctx{now_ms, nullptr, nullptr};
        auto out = compaction::clean_log(plan, map, ctx);
        EXPECT_TRUE(out) << (out ? "" : out.err().message);
        if (!out) {
            return {};
        }
        auto result = *out;
        auto swapped = l->swap_cleaned(*out, plan.generation, now_ms);
        EXPECT_TRUE(swapped && *swapped);
        return result;
    }

    // Every record from `from` to the LEO, as a consumer would fetch them.
    std::vector<read_record> read_all(int64_t from = -1) {
        std::vector<read_record> out;
        int64_t offset = from < 0 ? l->log_start_offset() : from;
        while (offset < l->log_end_offset()) {
            auto r = l->read(kafka_offset{offset}, 1 << 24, std::nullopt, true);
            EXPECT_TRUE(r) << (r ? "" : r.err().message);
            if (!r || r->records.empty()) {
                break;
            }
            auto data = r->records.read();
            EXPECT_TRUE(data);
            record::batch_iterator batches(*data);
            int64_t next = offset;
            while (auto b = batches.next()) {
                next = std::max(next, b->header.last_offset() + 1);
                auto it = record::record_iterator::open(b->data);
                EXPECT_TRUE(it);
                record::record rec;
                while (it && *it->next(rec)) {
                    int64_t o = it->offset_of(rec);
                    if (o < offset) {
                        continue;
                    }
                    read_record rr{o,  std::nullopt,          std::nullopt, it->timestamp_of(rec),
                                   {}, b->header.is_control()};
                    if (rec.key) {
                        rr.key = std::string(as_string_view(*rec.key));
                    }
                    if (rec.value) {
                        rr.value = std::string(as_string_view(*rec.value));
                    }
                    for (const auto& h : rec.headers) {
                        rr.headers.emplace_back(
                            std::string(h.key),
                            h.value ? std::string(as_string_view(*h.value)) : std::string());
                    }
                    out.push_back(std::move(rr));
                }
            }
            offset = next;
        }
        return out;
    }

    // The data records (no control records) as key -> latest value seen.
    std::map<std::string, std::optional<std::string>> latest(const std::vector<read_record>& rs) {
        std::map<std::string, std::optional<std::string>> m;
        for (const auto& r : rs) {
            if (!r.control && r.key) {
                m[*r.key] = r.value;
            }
        }
        return m;
    }
};

}  // namespace samsa::storage::testing
