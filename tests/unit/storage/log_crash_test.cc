// Crash tests: a child process appends and is killed with SIGKILL at random
// points; torn and zero-filled tails and damaged indexes written by hand. On
// reopen every acknowledged batch must be there, intact, and nothing may follow
// the first torn batch.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "storage/log.h"
#include "storage/segment_name.h"
#include "storage/temp_dir.h"
#include "storage/test_batches.h"

namespace samsa::storage {
namespace {

using testing::batch_crc_ok;
using testing::make_batch;
using testing::temp_dir;
namespace fs = std::filesystem;

log_config crash_config() {
    log_config c;
    c.segment_bytes = 1024 * 1024;
    c.index_interval_bytes = 4096;
    c.segment_index_bytes = 64 * 1024;
    return c;
}

// The batch the child appends as its `seq`-th: sizes from 100 B to ~640 KiB so
// that some writes are large enough to be cut by the kill.
testing::batch_spec spec_for(uint64_t seq) {
    std::mt19937_64 rng(seq * 7919 + 1);
    int records = 1 + int(rng() % 8);
    size_t value = (rng() % 10 == 0) ? 20000 + rng() % 60000 : 50 + rng() % 1000;
    return {.base_offset = 0,
            .records = records,
            .value_size = value,
            .base_timestamp = int64_t(1000000 + seq),
            .fill = uint8_t(seq)};
}

struct ack {
    uint64_t seq;
    int64_t first_offset;
};

std::shared_ptr<log> reopen(const std::string& dir, bool clean = false) {
    log_open_options o;
    o.dir = dir;
    o.tp = {"crash", 0};
    o.config = crash_config();
    o.had_clean_shutdown = clean;
    auto l = log::open(o);
    EXPECT_TRUE(l.has_value()) << (l ? "" : l.err().message);
    return l ? *l : nullptr;
}

[[noreturn]] void child_append_forever(const std::string& dir, uint64_t seq, int fd) {
    log_open_options o;
    o.dir = dir;
    o.tp = {"crash", 0};
    o.config = crash_config();
    auto l = log::open(o);
    if (!l) {
        _exit(2);
    }
    for (;; ++seq) {
        auto b = make_batch(spec_for(seq));
        auto r = (*l)->append_as_leader(b, 1, 0);
        if (!r) {
            _exit(3);  // append failed
        }
        ack a{seq, r->first_offset};
        if (::write(fd, &a, sizeof a) != sizeof a) {
            _exit(4);
        }
    }
}

// Everything in the log, batch by batch, from its start.
std::vector<std::pair<record::batch_header, bytes>> read_all(const log& l) {
    std::vector<std::pair<record::batch_header, bytes>> out;
    int64_t next = l.log_start_offset();
    while (next < l.log_end_offset()) {
        auto r = l.read(kafka_offset{next}, 8 << 20, std::nullopt, true);
        EXPECT_TRUE(r.has_value());
        if (!r || r->records.empty()) {
            break;
        }
        auto data = *r->records.read();
        size_t pos = 0;
        while (pos + record::batch_header_size <= data.size()) {
            auto h = record::decode_batch_header(data.data() + pos);
            if (pos + h.size_bytes() > data.size()) {
                break;
            }
            out.emplace_back(h, bytes(data.begin() + int64_t(pos),
                                      data.begin() + int64_t(pos + h.size_bytes())));
            pos += h.size_bytes();
            next = h.last_offset() + 1;
        }
    }
    return out;
}

TEST(log_crash, sigkill_at_random_points_loses_no_acknowledged_batch) {
    temp_dir root;
    std::string dir = root.file("crash-0");
    uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::map<int64_t, uint64_t> acked;  // first offset -> seq
    uint64_t next_seq = 0;
    int torn_rounds = 0;
    for (int round = 0; round < 8; ++round) {
        int fds[2];
        ASSERT_EQ(::pipe(fds), 0);
        pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::close(fds[0]);
            child_append_forever(dir, next_seq, fds[1]);
        }
        ::close(fds[1]);
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 60));
        ::kill(pid, SIGKILL);
        int wstatus = 0;
        ::waitpid(pid, &wstatus, 0);
        ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited with " << WEXITSTATUS(wstatus);
        ack a;
        uint64_t max_seq = next_seq;
        while (::read(fds[0], &a, sizeof a) == sizeof a) {
            acked[a.first_offset] = a.seq;
            max_seq = std::max(max_seq, a.seq + 1);
        }
        ::close(fds[0]);

        auto l = reopen(dir);
        ASSERT_TRUE(l);
        torn_rounds += l->load_report().bytes_truncated > 0 ? 1 : 0;
        auto batches = read_all(*l);
        // Contiguous, intact batches up to the LEO: nothing after a torn one.
        int64_t expect_next = 0;
        for (const auto& [h, b] : batches) {
            ASSERT_EQ(h.base_offset, expect_next);
            ASSERT_TRUE(batch_crc_ok(b)) << "at offset " << h.base_offset;
            expect_next = h.last_offset() + 1;
        }
        ASSERT_EQ(expect_next, l->log_end_offset());
        // Every acknowledged batch is there, byte for byte.
        std::map<int64_t, const bytes*> by_offset;
        for (const auto& [h, b] : batches) {
            by_offset[h.base_offset] = &b;
        }
        for (const auto& [offset, seq] : acked) {
            auto it = by_offset.find(offset);
            ASSERT_NE(it, by_offset.end()) << "acknowledged offset " << offset << " lost";
            auto expected = make_batch(spec_for(seq));
            ASSERT_EQ(it->second->size(), expected.size());
            // Past the stamped base offset and epoch, the bytes are the producer's.
            EXPECT_EQ(
                std::memcmp(it->second->data() + 16, expected.data() + 16, expected.size() - 16),
                0);
        }
        // Batches written but not acknowledged are valid too; the next child
        // continues after them with fresh sequence numbers.
        next_seq = max_seq + 1000;
        ASSERT_TRUE(l->close());
    }
    EXPECT_GT(acked.size(), 8u);
    std::printf("[   info   ] %zu acknowledged batches, %d of 8 kills left a torn tail\n",
                acked.size(), torn_rounds);
}

struct hand_damage : ::testing::Test {
    temp_dir root;
    std::string dir = root.file("crash-0");
    std::vector<bytes> appended;
    int64_t leo = 0;

    void SetUp() override {
        auto l = reopen(dir);
        for (uint64_t i = 0; i < 200; ++i) {
            auto b = make_batch(spec_for(i % 9 == 0 ? 1 : i));
            auto r = l->append_as_leader(b, 1, 0);
            ASSERT_TRUE(r) << r.err().message;
            appended.push_back(b);
        }
        leo = l->log_end_offset();
        ASSERT_GT(l->segment_count(), 2u);
        // Killed: no close, no flush.
    }

    std::string active_log() const {
        int64_t best = -1;
        for (const auto& e : fs::directory_iterator(dir)) {
            auto b = parse_segment_file_name(e.path().filename().string(), log_suffix);
            if (b && *b > best) {
                best = *b;
            }
        }
        return dir + "/" + segment_file_name(best, log_suffix);
    }

    void expect_all_there(const log& l) {
        auto batches = read_all(l);
        ASSERT_EQ(batches.size(), appended.size());
        for (size_t i = 0; i < batches.size(); ++i) {
            EXPECT_EQ(batches[i].second, appended[i]);
        }
        EXPECT_EQ(l.log_end_offset(), leo);
    }
};

TEST_F(hand_damage, torn_last_batch_is_cut_off) {
    auto torn = make_batch(spec_for(5000));
    std::ofstream(active_log(), std::ios::binary | std::ios::app)
        .write(reinterpret_cast<const char*>(torn.data()), std::streamsize(torn.size() - 7));
    auto l = reopen(dir);
    EXPECT_GT(l->load_report().bytes_truncated, 0);
    expect_all_there(*l);
    auto again = make_batch(spec_for(5000));
    auto r = l->append_as_leader(again, 1, 0);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->first_offset, leo);
}

TEST_F(hand_damage, zero_filled_tail_is_cut_off) {
    std::ofstream(active_log(), std::ios::binary | std::ios::app) << std::string(64 * 1024, '\0');
    auto l = reopen(dir);
    EXPECT_EQ(l->load_report().bytes_truncated, 64 * 1024);
    expect_all_there(*l);
}

TEST_F(hand_damage, truncated_and_corrupt_indexes_are_rebuilt) {
    for (const auto& e : fs::directory_iterator(dir)) {
        std::string n = e.path().filename().string();
        if (n.ends_with(".index")) {
            fs::resize_file(e.path(), fs::file_size(e.path()) / 2 + 3);
        } else if (n.ends_with(".timeindex")) {
            std::ofstream(e.path(), std::ios::binary | std::ios::in | std::ios::out)
                .write("\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f", 12);
        }
    }
    // Even after a clean shutdown the damage is found and repaired.
    auto l = reopen(dir, true);
    expect_all_there(*l);
    for (const auto& seg : l->segments()) {
        EXPECT_GT(seg->index().entries(), 0u);
    }
    // The rebuilt time index answers as a brute-force scan does.
    const int64_t target = 1000000 + 150;
    int64_t expected = -1;
    for (const auto& [h, b] : read_all(*l)) {
        for (int i = 0; i <= h.last_offset_delta && expected < 0; ++i) {
            if (h.base_timestamp + i >= target) {
                expected = h.base_offset + i;
            }
        }
    }
    auto t = l->offset_for_timestamp(target);
    ASSERT_TRUE(t && *t);
    EXPECT_EQ((*t)->offset, expected);
}

TEST_F(hand_damage, garbage_in_the_middle_drops_everything_after_it) {
    // Corrupt a batch in the first segment: that segment is cut there and the
    // later segments go (Kafka's rule: nothing after the first invalid batch).
    std::string first = dir + "/" + segment_file_name(0, log_suffix);
    {
        std::fstream f(first, std::ios::binary | std::ios::in | std::ios::out);
        f.seekp(std::streamoff(appended[0].size() + appended[1].size() + 30));
        f.write("garbage", 7);
    }
    const int64_t first_size = int64_t(fs::file_size(first));
    std::vector<uint64_t> later_sizes;
    for (const auto& e : fs::directory_iterator(dir)) {
        auto b = parse_segment_file_name(e.path().filename().string(), log_suffix);
        if (b && *b > 0) {
            later_sizes.push_back(fs::file_size(e.path()));
        }
    }
    auto l = reopen(dir);
    auto batches = read_all(*l);
    ASSERT_EQ(batches.size(), 2u);
    EXPECT_EQ(l->segment_count(), 1u);
    EXPECT_EQ(l->log_end_offset(), batches[1].first.last_offset() + 1);
    EXPECT_NE(l->load_report().first_truncation_reason.find("CRC"), std::string::npos);

    // Nothing is dropped silently: the report names every cut, and the cut
    // bytes (the rest of the first segment, every later segment) are kept as
    // .corrupt files beside the log.
    const auto& cuts = l->load_report().cuts;
    ASSERT_EQ(cuts.size(), 1 + later_sizes.size());
    EXPECT_TRUE(cuts[0].corrupt);
    EXPECT_EQ(cuts[0].segment, first);
    EXPECT_EQ(cuts[0].position, int64_t(appended[0].size() + appended[1].size()));
    EXPECT_EQ(cuts[0].from_offset, l->log_end_offset());
    ASSERT_FALSE(cuts[0].kept_as.empty());
    EXPECT_TRUE(cuts[0].kept_as.ends_with(".corrupt"));
    EXPECT_EQ(int64_t(fs::file_size(cuts[0].kept_as)), first_size - cuts[0].position);
    uint64_t kept_later = 0;
    for (size_t i = 1; i < cuts.size(); ++i) {
        ASSERT_TRUE(fs::exists(cuts[i].kept_as)) << cuts[i].kept_as;
        kept_later += fs::file_size(cuts[i].kept_as);
    }
    uint64_t later_total = 0;
    for (auto n : later_sizes) {
        later_total += n;
    }
    EXPECT_EQ(kept_later, later_total);
    // A reopen keeps them and loads the same log.
    const std::string kept = cuts[0].kept_as;
    l.reset();
    auto again = reopen(dir);
    EXPECT_EQ(read_all(*again).size(), 2u);
    EXPECT_TRUE(fs::exists(kept));
}

// A clean shutdown skips recovery, so damage is found when a read reaches it:
// the batches before it are served, the damaged one never is.
TEST_F(hand_damage, a_read_of_a_clean_log_refuses_a_batch_that_fails_its_crc) {
    std::string first = dir + "/" + segment_file_name(0, log_suffix);
    {
        std::fstream f(first, std::ios::binary | std::ios::in | std::ios::out);
        // Inside the third batch's records, past its header.
        f.seekp(std::streamoff(appended[0].size() + appended[1].size() + 70));
        char c = 0;
        f.read(&c, 1);
        f.seekp(std::streamoff(appended[0].size() + appended[1].size() + 70));
        c = char(c ^ 0x5a);
        f.write(&c, 1);
    }
    auto l = reopen(dir, true);
    ASSERT_EQ(l->load_report().segments_recovered, 0);
    auto r = l->read(kafka_offset{0}, 8 << 20, std::nullopt, true);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->records.length, int64_t(appended[0].size() + appended[1].size()));
    const int64_t third_offset = record::decode_batch_header(appended[1].data()).records_count +
                                 record::decode_batch_header(appended[0].data()).records_count;
    auto bad = l->read(kafka_offset{third_offset}, 8 << 20, std::nullopt, true);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.err().code, error_code::kafka_storage_error);
    EXPECT_NE(bad.err().message.find("CRC"), std::string::npos) << bad.err().message;
}

TEST_F(hand_damage, a_torn_tail_is_reported_as_one_and_kept) {
    auto torn = make_batch(spec_for(5000));
    std::ofstream(active_log(), std::ios::binary | std::ios::app)
        .write(reinterpret_cast<const char*>(torn.data()), std::streamsize(torn.size() - 7));
    auto l = reopen(dir);
    const auto& cuts = l->load_report().cuts;
    ASSERT_EQ(cuts.size(), 1u);
    EXPECT_FALSE(cuts[0].corrupt);
    EXPECT_EQ(cuts[0].bytes, int64_t(torn.size() - 7));
    EXPECT_EQ(int64_t(fs::file_size(cuts[0].kept_as)), cuts[0].bytes);
}

}  // namespace
}  // namespace samsa::storage
