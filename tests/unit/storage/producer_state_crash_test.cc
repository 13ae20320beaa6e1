// Producer state after SIGKILL: a child process appends idempotent batches of
// several producers (small segments, so rolls and snapshots happen) and is
// killed at random points. On reopen the state must equal a replay of the whole
// log, and a retry of every acknowledged batch still in each producer's window
// must be answered as a duplicate with its original offsets.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "storage/log.h"
#include "storage/producer_batches.h"
#include "storage/temp_dir.h"

namespace samsa::storage {
namespace {

using testing::producer_batch;
using testing::temp_dir;
using testing::test_now_ms;
namespace fs = std::filesystem;

constexpr int producers = 4;

log_config crash_config() {
    log_config c;
    c.segment_bytes = 8 * 1024;
    c.segment_index_bytes = 16 * 1024;
    return c;
}

struct ack {
    int64_t producer_id;
    int64_t first_offset;
    int32_t base_sequence;
    int32_t records;
    int16_t epoch;
};

std::shared_ptr<log> open_at(const std::string& dir) {
    log_open_options o;
    o.dir = dir;
    o.tp = {"crash", 0};
    o.config = crash_config();
    o.now_ms = test_now_ms;
    auto l = log::open(o);
    return l ? *l : nullptr;
}

[[noreturn]] void child_produce_forever(const std::string& dir, uint64_t seed, int fd) {
    auto l = open_at(dir);
    if (!l) {
        _exit(2);
    }
    std::mt19937_64 rng(seed);
    struct next_batch {
        int16_t epoch = 0;
        int32_t sequence = 0;
    };
    std::map<int64_t, next_batch> next;
    for (int64_t id = 1; id <= producers; ++id) {
        if (const auto* e = l->producer_state().find(id)) {
            next[id] = {e->producer_epoch, increment_sequence(e->last_seq(), 1)};
        } else if (id == producers) {
            // One producer starts close to INT32_MAX to cross the wrap.
            next[id] = {0, std::numeric_limits<int32_t>::max() - 300};
        }
    }
    for (;;) {
        const int64_t id = 1 + int64_t(rng() % producers);
        auto& n = next[id];
        if (rng() % 60 == 0) {
            n = {int16_t(n.epoch + 1), 0};  // the producer bumps its epoch
        }
        const int records = 1 + int(rng() % 5);
        auto b = producer_batch(
            {.producer_id = id, .epoch = n.epoch, .base_sequence = n.sequence, .records = records});
        auto r = l->append_as_leader(b, 0, test_now_ms);
        if (!r || r->duplicate) {
            _exit(3);
        }
        ack a{id, r->first_offset, n.sequence, records, n.epoch};
        if (::write(fd, &a, sizeof a) != sizeof a) {
            _exit(4);
        }
        n.sequence = increment_sequence(n.sequence, records);
    }
}

// The state a replay of the whole log gives (the directory without snapshots).
producer_map replayed(const std::string& dir) {
    temp_dir copy;
    std::string to = copy.file("crash-0");
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(dir)) {
        auto name = e.path().filename().string();
        if (!name.ends_with(".snapshot")) {
            fs::copy_file(e.path(), to + "/" + name);
        }
    }
    auto l = open_at(to);
    EXPECT_TRUE(l);
    return l ? l->producer_state().producers() : producer_map{};
}

TEST(producer_state_crash, sigkill_at_random_points_rebuilds_the_same_state) {
    temp_dir root;
    std::string dir = root.file("crash-0");
    const uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::map<int64_t, std::deque<ack>> acked;  // the last acknowledged batches
    size_t total_acks = 0, duplicates_checked = 0;
    for (int round = 0; round < 8; ++round) {
        int fds[2];
        ASSERT_EQ(::pipe(fds), 0);
        pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::close(fds[0]);
            child_produce_forever(dir, seed + uint64_t(round), fds[1]);
        }
        ::close(fds[1]);
        std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 150));
        ::kill(pid, SIGKILL);
        int wstatus = 0;
        ::waitpid(pid, &wstatus, 0);
        ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited with " << WEXITSTATUS(wstatus);
        ack a;
        while (::read(fds[0], &a, sizeof a) == sizeof a) {
            auto& q = acked[a.producer_id];
            if (!q.empty() && q.back().epoch != a.epoch) {
                q.clear();
            }
            q.push_back(a);
            // The child may have written one more batch than it acknowledged,
            // so the last four acknowledged ones are surely in the window.
            if (q.size() > max_retained_batches - 1) {
                q.pop_front();
            }
            ++total_acks;
        }
        ::close(fds[0]);

        auto l = open_at(dir);
        ASSERT_TRUE(l);
        const producer_map state = l->producer_state().producers();
        EXPECT_EQ(state, replayed(dir)) << "round " << round;
        // Retries of acknowledged batches in each producer's window are
        // duplicates answered with their original offsets.
        for (const auto& [id, q] : acked) {
            auto it = state.find(id);
            ASSERT_NE(it, state.end()) << "producer " << id << " lost";
            for (const ack& x : q) {
                if (x.epoch != it->second.producer_epoch) {
                    continue;  // an unacknowledged batch bumped the epoch
                }
                auto b = producer_batch({.producer_id = id,
                                         .epoch = x.epoch,
                                         .base_sequence = x.base_sequence,
                                         .records = x.records});
                auto r = l->append_as_leader(b, 0, test_now_ms);
                ASSERT_TRUE(r) << "producer " << id << " seq " << x.base_sequence << ": "
                               << r.err().message;
                EXPECT_TRUE(r->duplicate);
                EXPECT_EQ(r->first_offset, x.first_offset);
                ++duplicates_checked;
            }
        }
        if (round % 2 == 1) {
            ASSERT_TRUE(l->close());  // sometimes a clean close between the kills
        }
    }
    EXPECT_GT(total_acks, 50u);
    std::printf("[   info   ] %zu acknowledged batches, %zu retries answered as duplicates\n",
                total_acks, duplicates_checked);
}

}  // namespace
}  // namespace samsa::storage
