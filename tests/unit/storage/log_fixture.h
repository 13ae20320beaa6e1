#pragma once
// A log in a temporary directory with a small index interval, and helpers to
// append producer batches and read their headers back: shared by the log's
// tests (log_test.cc, log_flush_test.cc).
#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/log.h"
#include "storage/temp_dir.h"
#include "storage/test_batches.h"

namespace samsa::storage {

// A background pool simulated by a queue the test drains by hand.
struct manual_executor {
    std::deque<std::pair<std::function<status()>, std::function<void(status)>>> jobs;
    blocking_executor get() {
        return [this](std::function<status()> job, std::function<void(status)> done) {
            jobs.emplace_back(std::move(job), std::move(done));
        };
    }
    void run_one() {
        auto [job, done] = std::move(jobs.front());
        jobs.pop_front();
        done(job());
    }
};

struct log_fixture : ::testing::Test {
    testing::temp_dir root;
    std::shared_ptr<deletion_queue> deletions = std::make_shared<deletion_queue>();
    log_config config = [] {
        log_config c;
        c.index_interval_bytes = 256;
        c.segment_index_bytes = 64 * 1024;
        c.file_delete_delay_ms = 1000;
        return c;
    }();

    std::string dir() const { return root.file("orders-0"); }

    std::shared_ptr<log> open_log(log_open_options o = {}) {
        o.dir = dir();
        o.tp = {"orders", 0};
        o.config = config;
        o.deletions = deletions;
        auto l = log::open(o);
        EXPECT_TRUE(l.has_value()) << (l ? "" : l.err().message);
        return l ? *l : nullptr;
    }

    // A log whose flushes wait in `ex` until the test runs them.
    std::shared_ptr<log> open_log_with(manual_executor& ex, bool background_flush = true) {
        log_open_options o;
        o.executor = ex.get();
        o.background_flush = background_flush;
        return open_log(o);
    }

    // A producer's batch: base offset 0, as clients send it.
    static bytes producer_batch(int records, int64_t ts = 1000, size_t value_size = 100,
                                uint8_t fill = 0) {
        return testing::make_batch({.base_offset = 0,
                                    .records = records,
                                    .value_size = value_size,
                                    .base_timestamp = ts,
                                    .timestamp_step = 1,
                                    .fill = fill});
    }

    append_result append(log& l, int records, int64_t ts = 1000, int32_t epoch = 0,
                         int64_t now = 0) {
        auto b = producer_batch(records, ts);
        auto r = l.append_as_leader(b, epoch, now);
        EXPECT_TRUE(r.has_value()) << (r ? "" : r.err().message);
        return r ? *r : append_result{};
    }

    static std::vector<record::batch_header> read_headers(
        const log& l, int64_t from, std::optional<kafka_offset> max_offset = std::nullopt) {
        std::vector<record::batch_header> out;
        auto r = l.read(kafka_offset{from}, 1 << 30, max_offset, false);
        EXPECT_TRUE(r.has_value());
        if (!r) {
            return out;
        }
        auto data = r->records.read();
        size_t pos = 0;
        while (pos + record::batch_header_size <= data->size()) {
            auto h = record::decode_batch_header(data->data() + pos);
            EXPECT_TRUE(testing::batch_crc_ok(bytes_view(*data).subspan(pos, h.size_bytes())));
            out.push_back(h);
            pos += h.size_bytes();
        }
        return out;
    }
};

}  // namespace samsa::storage
