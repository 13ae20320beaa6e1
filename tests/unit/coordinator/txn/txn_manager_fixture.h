#pragma once
// A txn_manager over a real __transaction_state-0 log in a temporary
// directory (one partition, this node its only replica), with fake clocks
// (advance()) and the posted work run by hand (run_posted()), as
// group_manager_fixture.h tests the group coordinator.
//
// Its marker channel reads an empty metadata cache by default: with no topic
// in the image every partition of a marker counts as deleted, so the markers
// are "written" at once and a transaction completes as soon as its Prepare*
// state is replicated. A test that wants the markers to wait publishes a
// topic whose partitions have no leader (hold_markers_for()): the channel
// then retries every millisecond until the topic goes (release_markers()).
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/partition.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/txn/transaction_log_serde.h"
#include "coordinator/txn/txn_manager.h"
#include "coordinator/txn/txn_marker_channel.h"
#include "metadata/metadata_cache.h"
#include "record/batch_builder.h"

namespace samsa::coordinator::txn::testing {

class txn_manager_fixture : public ::testing::Test {
  protected:
    void SetUp() override {
        auto base = std::filesystem::temp_directory_path() / "samsa-txns-XXXXXX";
        std::string tmpl = base.string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        _dir = tmpl;
        config.num_partitions = 1;
        config.max_timeout_ms = 900000;
        // The timer never fires by itself: tests call abort_timed_out_transactions().
        config.abort_check_interval_ms = 1'000'000'000;
        config.append_timeout_ms = 5000;
        open_partition();
        driver =
            std::make_unique<cluster::purgatory_driver>(io.get_executor(), [this] { return now; });
        start_manager();
    }
    void TearDown() override {
        manager.reset();
        driver.reset();
        partition.reset();
        std::error_code ec;
        std::filesystem::remove_all(_dir, ec);
    }

    void open_partition() {
        storage::log_open_options o;
        o.dir = _dir + "/__transaction_state-0";
        o.tp = {transaction_state_topic, 0};
        o.now_ms = wall;
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
    }

    // A fresh manager that leads the partition and has loaded it.
    void start_manager() {
        manager.reset();
        auto ch = std::make_unique<txn_marker_channel>(io.get_executor(), metadata, "PLAINTEXT", 1,
                                                       std::chrono::milliseconds(1000), nullptr,
                                                       std::chrono::milliseconds(1));
        markers = ch.get();
        manager = std::make_unique<txn_manager>(
            config, *driver, [this] { return wall; }, std::move(ch));
        elect();
    }
    void elect() {
        manager->on_elected(0, partition.get());
        run_posted();
        ASSERT_EQ(manager->status_of("any"), error_code::none);
    }

    void run_posted() {
        io.restart();
        io.poll();
    }
    void advance(int64_t ms) {
        now += ms;
        wall += ms;
        driver->poll();
        run_posted();
    }
    // Runs the executor (timers included) until `done` holds; false after 10 s.
    bool run_until(const std::function<bool()>& done) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!done()) {
            if (std::chrono::steady_clock::now() > deadline) {
                return false;
            }
            io.restart();
            io.run_one_for(std::chrono::milliseconds(5));
        }
        return true;
    }

    // ---- state writes
    // A second replica in the ISR that never fetches: state writes stay in
    // flight until append_timeout_ms. Released, the ISR is the leader alone.
    void hold_state_writes(bool hold = true) {
        metadata::partition_registration reg;
        reg.partition = 0;
        reg.leader = node_id{1};
        reg.leader_epoch = 0;
        reg.replicas = to_node_ids({1, 2});
        reg.isr = hold ? to_node_ids({1, 2}) : to_node_ids({1});
        partition->update_registration(reg);
    }
    void release_state_writes() { hold_state_writes(false); }

    // ---- markers
    // Publishes `topic` with `partitions` leaderless partitions: markers to it wait.
    void hold_markers_for(const std::string& topic, int32_t partitions) {
        auto image = std::make_shared<metadata::metadata_image>();
        auto t = std::make_shared<metadata::topic_image>();
        t->name = topic;
        t->id = uuid::random();
        for (int32_t p = 0; p < partitions; ++p) {
            auto& reg = t->partitions.emplace_back();
            reg.partition = p;
            reg.leader = no_node;
        }
        image->topics_by_name[topic] = t;
        image->topics_by_id[t->id] = t;
        metadata.update(image);
    }
    void release_markers() { metadata.update(std::make_shared<metadata::metadata_image>()); }

    // ---- requests (each runs what it posted; the answer must have come)
    // One InitProducerId call as a handler makes it.
    init_pid_result init_once(const std::string& id, int32_t timeout_ms = 60000,
                              int64_t expected_pid = -1, int16_t expected_epoch = -1,
                              std::optional<int64_t> fresh = std::nullopt) {
        std::optional<init_pid_result> out;
        manager->init_producer_id(id, timeout_ms, expected_pid, expected_epoch, fresh,
                                  [&out](init_pid_result r) { out = r; });
        run_posted();
        EXPECT_TRUE(out.has_value()) << "no answer to InitProducerId";
        return out.value_or(init_pid_result{error_code::unknown_server_error});
    }
    // InitProducerId as transaction_coordinator drives it: a fresh producer id
    // (next_producer_id++) when the manager asks for one.
    init_pid_result init(const std::string& id, int32_t timeout_ms = 60000,
                         int64_t expected_pid = -1, int16_t expected_epoch = -1) {
        auto r = init_once(id, timeout_ms, expected_pid, expected_epoch);
        if (r.needs_producer_id) {
            r = init_once(id, timeout_ms, expected_pid, expected_epoch, next_producer_id++);
        }
        return r;
    }
    error_code add(const std::string& id, int64_t pid, int16_t epoch,
                   const std::vector<storage::topic_partition>& partitions,
                   bool verify_only = false) {
        std::optional<error_code> out;
        manager->add_partitions(id, pid, epoch, partitions, verify_only,
                                [&out](error_code ec) { out = ec; });
        run_posted();
        EXPECT_TRUE(out.has_value()) << "no answer to AddPartitionsToTxn";
        return out.value_or(error_code::unknown_server_error);
    }
    // EndTxn; `state_when_answered` gets the id's state as the answer comes.
    error_code end(const std::string& id, int64_t pid, int16_t epoch, bool commit,
                   std::optional<txn_state>* state_when_answered = nullptr) {
        std::optional<error_code> out;
        manager->end_txn(id, pid, epoch, commit, [&](error_code ec) {
            out = ec;
            if (state_when_answered) {
                *state_when_answered = manager->describe(id).second.state;
            }
        });
        run_posted();
        EXPECT_TRUE(out.has_value()) << "no answer to EndTxn";
        return out.value_or(error_code::unknown_server_error);
    }
    transaction_metadata describe(const std::string& id) {
        auto [ec, m] = manager->describe(id);
        EXPECT_EQ(error_name(ec), error_name(error_code::none)) << id;
        return m;
    }
    txn_state state(const std::string& id) { return describe(id).state; }
    int64_t log_end() const { return partition->log()->log_end_offset(); }

    // Appends a record of `m` to the partition as a previous coordinator
    // would have written it (the manager must not lead it meanwhile).
    void write_record(const transaction_metadata& m) {
        auto key = encode_transaction_log_key(m.transactional_id);
        auto value = encode_transaction_log_value(m);
        record::batch_builder b;
        b.add(wall, bytes_view(key), bytes_view(value));
        auto batch = b.build();
        ASSERT_TRUE(batch) << batch.err().message;
        auto out = partition->append_internal(*batch, wall);
        ASSERT_EQ(error_name(out.error.code), error_name(error_code::none)) << out.error.message;
    }

    txn_config config;
    asio::io_context io;
    int64_t now = 1'000'000;
    int64_t wall = 1'700'000'000'000;
    int64_t next_producer_id = 1000;
    metadata::metadata_cache metadata;
    std::unique_ptr<cluster::partition> partition;
    std::unique_ptr<cluster::purgatory_driver> driver;
    txn_marker_channel* markers = nullptr;  // owned by the manager
    std::unique_ptr<txn_manager> manager;

  private:
    std::string _dir;
};

}  // namespace samsa::coordinator::txn::testing
