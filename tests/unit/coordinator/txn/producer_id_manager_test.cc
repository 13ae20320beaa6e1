#include "coordinator/txn/producer_id_manager.h"

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

namespace samsa::coordinator::txn {
namespace {

// Stands in for the controller: consecutive blocks, counting the requests.
struct fake_controller {
    std::mutex mutex;
    int64_t next = 0;
    int32_t block_size = 10;
    int calls = 0;
    bool fail = false;

    result<metadata::producer_id_block> allocate() {
        std::lock_guard lock(mutex);
        ++calls;
        if (fail) {
            return error(error_code::kafka_storage_error, "metadata log failed");
        }
        metadata::producer_id_block b{next, block_size};
        next += block_size;
        return b;
    }
};

asio::awaitable<result<metadata::producer_id_block>> allocate_from(fake_controller* c) {
    co_return c->allocate();
}

producer_id_block_source source_of(fake_controller& c) {
    auto* p = &c;
    return [p]() { return allocate_from(p); };
}

// Runs next_producer_id() to completion on `io`.
result<int64_t> next_id(producer_id_manager& m, asio::io_context& io) {
    std::optional<result<int64_t>> out;
    auto op = [&m, &out]() -> asio::awaitable<void> { out.emplace(co_await m.next_producer_id()); };
    asio::co_spawn(io, op, asio::detached);
    io.restart();
    io.run();
    return std::move(*out);
}

TEST(producer_id_manager, hands_out_consecutive_ids_block_after_block) {
    fake_controller c;
    producer_id_manager m(source_of(c));
    asio::io_context io;
    for (int64_t want = 0; want < 35; ++want) {
        auto id = next_id(m, io);
        ASSERT_TRUE(id) << id.err().message;
        EXPECT_EQ(*id, want);
    }
    EXPECT_EQ(c.calls, 4);
}

TEST(producer_id_manager, fetches_the_next_block_once_90_percent_is_used) {
    fake_controller c;
    producer_id_manager m(source_of(c));
    asio::io_context io;
    for (int i = 0; i < 8; ++i) {
        ASSERT_TRUE(next_id(m, io));
    }
    EXPECT_EQ(c.calls, 1);
    ASSERT_TRUE(next_id(m, io));  // the 9th of 10
    EXPECT_EQ(c.calls, 2);        // prefetched in the background
    EXPECT_EQ(m.remaining(), 11);
    ASSERT_TRUE(next_id(m, io));
    EXPECT_EQ(*next_id(m, io), 10);  // from the prefetched block, no wait
    EXPECT_EQ(c.calls, 2);
}

TEST(producer_id_manager, controller_errors_reach_the_caller_and_the_next_call_retries) {
    fake_controller c;
    c.fail = true;
    producer_id_manager m(source_of(c));
    asio::io_context io;
    auto id = next_id(m, io);
    ASSERT_FALSE(id);
    EXPECT_EQ(id.err().code, error_code::kafka_storage_error);
    c.fail = false;
    auto again = next_id(m, io);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, 0);
}

TEST(producer_id_manager, ids_are_unique_across_reactor_threads) {
    fake_controller c;
    c.block_size = 1000;
    producer_id_manager m(source_of(c));
    constexpr int threads = 4;
    constexpr int per_thread = 3000;
    std::vector<std::vector<int64_t>> got(threads);
    std::vector<std::thread> workers;
    std::atomic<int> failures{0};
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            asio::io_context io;
            auto& out = got[size_t(t)];
            auto& fails = failures;
            auto op = [&m, &out, &fails]() -> asio::awaitable<void> {
                for (int i = 0; i < per_thread; ++i) {
                    auto id = co_await m.next_producer_id();
                    if (id) {
                        out.push_back(*id);
                    } else {
                        ++fails;
                    }
                }
            };
            asio::co_spawn(io, op, asio::detached);
            io.run();
        });
    }
    for (auto& w : workers) {
        w.join();
    }
    EXPECT_EQ(failures.load(), 0);
    std::set<int64_t> all;
    for (const auto& v : got) {
        EXPECT_EQ(v.size(), size_t(per_thread));
        all.insert(v.begin(), v.end());
    }
    EXPECT_EQ(all.size(), size_t(threads * per_thread));
    // Blocks fetched at once by callers that all ran out are queued, not
    // dropped: what is left over is at most one block per caller and the
    // prefetched one.
    EXPECT_EQ(m.remaining(), c.next - int64_t(threads * per_thread));
    EXPECT_LE(m.remaining(), (threads + 1) * c.block_size);
}

}  // namespace
}  // namespace samsa::coordinator::txn
