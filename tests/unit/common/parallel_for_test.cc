#include "common/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace samsa {
namespace {

TEST(ParallelFor, CallsEveryIndexOnce) {
    std::vector<std::atomic<int>> calls(1000);
    parallel_for(calls.size(), 4, [&](size_t i) { ++calls[i]; });
    for (const auto& c : calls) {
        EXPECT_EQ(c.load(), 1);
    }
}

TEST(ParallelFor, OneThreadIsAPlainLoopOnTheCaller) {
    std::vector<size_t> order;
    const auto caller = std::this_thread::get_id();
    parallel_for(5, 1, [&](size_t i) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        order.push_back(i);
    });
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(ParallelFor, NothingToDoStartsNoThread) {
    int calls = 0;
    parallel_for(0, 8, [&](size_t) { ++calls; });
    EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, RunsJobsAtTheSameTimeUpToTheThreadCount) {
    // Three jobs that each wait until three are running: only three threads
    // running together can finish them (a deadline keeps a failure finite).
    std::mutex m;
    std::condition_variable cv;
    int running = 0;
    bool all_met = true;
    std::set<std::thread::id> ids;
    parallel_for(3, 3, [&](size_t) {
        std::unique_lock lock(m);
        ids.insert(std::this_thread::get_id());
        ++running;
        cv.notify_all();
        if (!cv.wait_for(lock, std::chrono::seconds(30), [&] { return running == 3; })) {
            all_met = false;
        }
    });
    EXPECT_TRUE(all_met);
    EXPECT_EQ(ids.size(), 3u);
}

TEST(ParallelFor, RethrowsTheFirstErrorAfterEveryThreadStopped) {
    std::atomic<int> calls{0};
    EXPECT_THROW(parallel_for(100, 1,
                              [&](size_t i) {
                                  ++calls;
                                  if (i == 10) {
                                      throw std::runtime_error("job 10");
                                  }
                              }),
                 std::runtime_error);
    // One thread takes jobs in order, so it stops right after the failing one.
    EXPECT_EQ(calls.load(), 11);
}

}  // namespace
}  // namespace samsa
