#pragma once
// A group_manager over a real __consumer_offsets-0 log in a temporary
// directory, with fake clocks: tests move time by hand (advance()) and run
// the posted load steps (run_posted()).
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cluster/partition.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/group/group_manager.h"

namespace samsa::coordinator::testing {

using join_result = std::shared_ptr<std::optional<join_group_result>>;
using sync_result = std::shared_ptr<std::optional<sync_group_result>>;

class group_manager_fixture : public ::testing::Test {
  protected:
    void SetUp() override {
        auto base = std::filesystem::temp_directory_path() / "samsa-groups-XXXXXX";
        std::string tmpl = base.string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        _dir = tmpl;
        config.offsets_topic_num_partitions = 1;
        config.initial_rebalance_delay_ms = 0;
        config.min_session_timeout_ms = 10;
        config.max_session_timeout_ms = 100000;
        config.offsets_retention_ms = 100000;
        config.offsets_retention_check_interval_ms = 1'000'000'000;
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
        o.dir = _dir + "/__consumer_offsets-0";
        o.tp = {"__consumer_offsets", 0};
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
        manager = std::make_unique<group_manager>(config, *driver, [this] { return wall; });
        manager->on_elected(0, partition.get());
        run_posted();
        ASSERT_TRUE(manager->is_loaded(0));
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

    // A topic in `image`, the metadata consumer groups resolve against.
    void add_topic(const std::string& name, int32_t partitions) {
        auto t = std::make_shared<metadata::topic_image>();
        t->name = name;
        t->id = uuid::random();
        t->partitions.resize(size_t(partitions));
        image.topics_by_name[name] = t;
        image.topics_by_id[t->id] = t;
        ++image.offset;
    }
    uuid id_of(const std::string& topic) { return image.topic(topic)->id; }

    static std::vector<member_protocol> protocols(std::vector<std::string> names) {
        std::vector<member_protocol> out;
        for (auto& n : names) {
            auto& p = out.emplace_back();
            p.name = n;
            p.metadata = bytes(n.begin(), n.end());
        }
        return out;
    }

    join_result join(const std::string& group, const std::string& member_id, int16_t version = 3,
                     std::optional<std::string> instance = std::nullopt,
                     std::vector<std::string> protocol_names = {"range"},
                     int32_t session_timeout = 1000, int32_t rebalance_timeout = 2000) {
        join_group_params req;
        req.group_id = group;
        req.member_id = member_id;
        req.group_instance_id = std::move(instance);
        req.session_timeout_ms = session_timeout;
        req.rebalance_timeout_ms = rebalance_timeout;
        req.protocol_type = "consumer";
        req.protocols = protocols(std::move(protocol_names));
        auto out = std::make_shared<std::optional<join_group_result>>();
        manager->groups().join_group(req, {"client", "/127.0.0.1", version},
                                     [out](join_group_result r) { *out = std::move(r); });
        return out;
    }

    sync_result sync(const std::string& group, const std::string& member_id, int32_t generation,
                     std::map<std::string, bytes> assignments = {},
                     std::optional<std::string> instance = std::nullopt) {
        sync_group_params req;
        req.group_id = group;
        req.member_id = member_id;
        req.generation_id = generation;
        req.group_instance_id = std::move(instance);
        for (auto& [id, a] : assignments) {
            req.assignments.emplace_back(id, a);
        }
        auto out = std::make_shared<std::optional<sync_group_result>>();
        manager->groups().sync_group(req, {"client", "/127.0.0.1", 3},
                                     [out](sync_group_result r) { *out = std::move(r); });
        return out;
    }

    error_code heartbeat(const std::string& group, const std::string& member_id, int32_t generation,
                         std::optional<std::string> instance = std::nullopt) {
        heartbeat_params req;
        req.group_id = group;
        req.member_id = member_id;
        req.generation_id = generation;
        req.group_instance_id = std::move(instance);
        return manager->groups().heartbeat(req);
    }

    error_code leave(const std::string& group, const std::string& member_id) {
        leaving_member m;
        m.member_id = member_id;
        auto r = manager->groups().leave_group(group, {m});
        if (r.error != error_code::none) {
            return r.error;
        }
        return r.members.at(0).error;
    }

    error_code commit(const std::string& group, int32_t generation, const std::string& member_id,
                      const std::string& topic, int32_t partition_index, int64_t offset,
                      std::string metadata = "",
                      int16_t api_version = first_member_epoch_offset_commit_version) {
        std::vector<offset_commit_item> items(1);
        items[0].tp = {topic, partition_index};
        if (const auto* known = image.topic(topic)) {
            items[0].topic_id = known->id;
        }
        items[0].value = {offset, -1, std::move(metadata), wall, std::nullopt};
        manager->offsets().commit_offsets(group, generation, member_id, std::nullopt, items,
                                          api_version);
        return items[0].error;
    }

    int64_t committed(const std::string& group, const std::string& topic, int32_t p) {
        std::vector<storage::topic_partition> tps{{topic, p}};
        auto r = manager->offsets().fetch_offsets(group, tps, false);
        EXPECT_EQ(r.error, error_code::none);
        return r.partitions.at(0).offset;
    }

    // One member (dynamic, or static with `instance`) in a Stable group:
    // returns its member id; the generation is the group's.
    std::string stable_group_of_one(const std::string& group,
                                    std::optional<std::string> instance = std::nullopt) {
        auto j = join(group, "", 5, instance);
        if (!instance) {
            // v5 asks for a member id first (KIP-394).
            EXPECT_EQ(j->value().error, error_code::member_id_required);
            j = join(group, j->value().member_id, 5);
        }
        advance(1);
        EXPECT_TRUE(j->has_value());
        const auto& r = j->value();
        EXPECT_EQ(r.error, error_code::none);
        auto s = sync(group, r.member_id, r.generation_id, {{r.member_id, bytes{1}}}, instance);
        EXPECT_TRUE(s->has_value());
        return r.member_id;
    }

    int32_t generation(const std::string& group) {
        return manager->groups().group(group)->generation_id();
    }
    group_state state(const std::string& group) { return manager->groups().group(group)->state(); }

    group_config config;
    metadata::metadata_image image;
    asio::io_context io;
    int64_t now = 1'000'000;
    int64_t wall = 1'700'000'000'000;
    std::unique_ptr<cluster::partition> partition;
    std::unique_ptr<cluster::purgatory_driver> driver;
    std::unique_ptr<group_manager> manager;

  private:
    std::string _dir;
};

}  // namespace samsa::coordinator::testing
