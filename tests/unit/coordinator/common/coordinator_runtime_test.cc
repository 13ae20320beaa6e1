// The coordinator runtime with a toy state machine (the last value per key):
// what a coordinator writes through it comes back on the next election by
// replay, loading takes one chunk per turn of the executor and answers
// COORDINATOR_LOAD_IN_PROGRESS meanwhile, resignation unloads, and an append
// to a partition it does not serve is refused.
#include "coordinator/common/coordinator_runtime.h"

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "record/batch_iterator.h"
#include "record/record.h"

namespace samsa::coordinator {
namespace {

std::string str(bytes_view b) {
    return std::string(b.begin(), b.end());
}
bytes of(const std::string& s) {
    return bytes(s.begin(), s.end());
}

// The last value of each key; a tombstone removes it.
class kv_shard final : public coordinator_shard {
  public:
    explicit kv_shard(int* unloads) : _unloads(unloads) {}
    status replay(bytes_view batch) override {
        auto it = record::record_iterator::open(batch);
        if (!it) {
            return it.err();
        }
        ++batches;
        record::record r;
        while (true) {
            auto more = it->next(r);
            if (!more) {
                return more.err();
            }
            if (!*more) {
                return {};
            }
            if (r.value) {
                values[str(*r.key)] = str(*r.value);
            } else {
                values.erase(str(*r.key));
            }
        }
    }
    void on_loaded() override { loaded = true; }
    void on_unloaded() override { ++*_unloads; }

    std::map<std::string, std::string> values;
    int batches = 0;
    bool loaded = false;

  private:
    int* _unloads;
};

class coordinator_runtime_test : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "samsa-runtime-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        _dir = tmpl;
        storage::log_open_options o;
        o.dir = _dir + "/__toy_state-0";
        o.tp = {"__toy_state", 0};
        o.now_ms = 1000;
        auto l = storage::log::open(o);
        ASSERT_TRUE(l) << l.err().message;
        partition = std::make_unique<cluster::partition>(o.tp, uuid::random(), node_id{1}, *l);
        metadata::partition_registration reg;
        reg.partition = 0;
        reg.leader = node_id{1};
        reg.leader_epoch = 0;
        reg.replicas = to_node_ids({1});
        reg.isr = to_node_ids({1});
        partition->update_registration(reg);
        driver =
            std::make_unique<cluster::purgatory_driver>(io.get_executor(), [this] { return now; });
        runtime = make_runtime(1 << 20);
    }
    void TearDown() override {
        runtime.reset();
        driver.reset();
        partition.reset();
        std::error_code ec;
        std::filesystem::remove_all(_dir, ec);
    }

    std::unique_ptr<coordinator_runtime> make_runtime(int64_t chunk) {
        return std::make_unique<coordinator_runtime>(
            coordinator_runtime_config{"__toy_state", chunk, 5000}, *driver, [this] { return now; },
            [this](int32_t) { return std::make_unique<kv_shard>(&unloads); });
    }
    kv_shard* shard() { return static_cast<kv_shard*>(runtime->shard(0)); }
    // One turn of the executor: at most one load step.
    size_t run_one() {
        io.restart();
        return io.run_one();
    }
    void run_posted() {
        io.restart();
        io.poll();
    }

    asio::io_context io;
    int64_t now = 1000;
    int unloads = 0;
    std::unique_ptr<cluster::partition> partition;
    std::unique_ptr<cluster::purgatory_driver> driver;
    std::unique_ptr<coordinator_runtime> runtime;

  private:
    std::string _dir;
};

TEST_F(coordinator_runtime_test, a_partition_not_led_is_not_coordinator) {
    EXPECT_EQ(runtime->status(0), error_code::not_coordinator);
    EXPECT_EQ(runtime->loaded(0), nullptr);
    EXPECT_EQ(runtime->append(0, {{of("k"), of("v")}}), error_code::not_leader_or_follower);
    std::optional<error_code> replicated;
    runtime->when_replicated(0, [&](error_code ec) { replicated = ec; });
    EXPECT_EQ(replicated, error_code::not_coordinator);
}

TEST_F(coordinator_runtime_test, what_was_written_is_replayed_on_the_next_election) {
    runtime->on_elected(0, partition.get());
    EXPECT_EQ(runtime->status(0), error_code::coordinator_load_in_progress);
    EXPECT_EQ(runtime->append(0, {{of("k"), of("v")}}), error_code::not_leader_or_follower);
    run_posted();
    ASSERT_EQ(runtime->status(0), error_code::none);
    ASSERT_TRUE(shard()->loaded);
    EXPECT_TRUE(shard()->values.empty());

    EXPECT_EQ(runtime->append(0, {{of("a"), of("1")}, {of("b"), of("2")}}), error_code::none);
    EXPECT_EQ(runtime->append(0, {{of("a"), of("3")}, {of("b"), std::nullopt}}), error_code::none);
    std::optional<error_code> replicated;
    runtime->when_replicated(0, [&](error_code ec) { replicated = ec; });
    run_posted();
    EXPECT_EQ(replicated, error_code::none);  // one replica: at once

    runtime->on_resigned(0);
    EXPECT_EQ(unloads, 1);
    EXPECT_EQ(runtime->status(0), error_code::not_coordinator);

    runtime->on_elected(0, partition.get());
    run_posted();
    ASSERT_TRUE(runtime->is_loaded(0));
    EXPECT_EQ(shard()->batches, 2);
    EXPECT_EQ(shard()->values, (std::map<std::string, std::string>{{"a", "3"}}));
}

TEST_F(coordinator_runtime_test, loading_reads_one_chunk_per_turn_and_stops_when_resigned) {
    runtime->on_elected(0, partition.get());
    run_posted();
    for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(runtime->append(0, {{of("k" + std::to_string(i)), of(std::string(200, 'x'))}}),
                  error_code::none);
    }
    runtime->on_resigned(0);

    runtime = make_runtime(600);  // a few batches per chunk
    runtime->on_elected(0, partition.get());
    int turns = 0;
    while (runtime->is_loading(0) && run_one() > 0) {
        ++turns;
        ASSERT_LT(turns, 100);
    }
    ASSERT_TRUE(runtime->is_loaded(0));
    EXPECT_GT(turns, 3);  // not all in one step
    EXPECT_EQ(shard()->values.size(), 20u);

    // Resigning in the middle of a load: the rest of the steps do nothing.
    runtime->on_resigned(0);
    runtime->on_elected(0, partition.get());
    EXPECT_EQ(run_one(), 1u);
    runtime->on_resigned(0);
    run_posted();
    EXPECT_EQ(runtime->status(0), error_code::not_coordinator);
}

TEST_F(coordinator_runtime_test, a_new_epoch_while_loaded_keeps_the_state) {
    runtime->on_elected(0, partition.get());
    run_posted();
    ASSERT_EQ(runtime->append(0, {{of("a"), of("1")}}), error_code::none);
    auto* before = shard();
    runtime->on_elected(0, partition.get());  // a new leader epoch, same leader
    EXPECT_EQ(shard(), before);
    EXPECT_TRUE(runtime->is_loaded(0));
    EXPECT_EQ(unloads, 0);
}

TEST_F(coordinator_runtime_test, for_each_sees_loading_and_loaded_partitions) {
    runtime->on_elected(0, partition.get());
    int seen = 0;
    bool was_loading = false;
    runtime->for_each([&](int32_t p, coordinator_shard&, bool loading) {
        ++seen;
        was_loading = loading;
        EXPECT_EQ(p, 0);
    });
    EXPECT_EQ(seen, 1);
    EXPECT_TRUE(was_loading);
    EXPECT_TRUE(runtime->any_loading());
    run_posted();
    EXPECT_FALSE(runtime->any_loading());
}

}  // namespace
}  // namespace samsa::coordinator
