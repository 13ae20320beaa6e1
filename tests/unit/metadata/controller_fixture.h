#pragma once
// A controller over a real metadata log in a temporary directory, driven
// synchronously (do_* operations on the test's thread), and reopened from the
// same directory to check what a restart replays.
#include <gtest/gtest.h>

#include <memory>

#include "metadata/controller.h"
#include "metadata/metadata_log.h"
#include "metadata_test_util.h"

namespace samsa::metadata::testing {

class controller_fixture : public ::testing::Test {
  protected:
    void SetUp() override { open(); }

    // Opens (or reopens) the log and a controller over what it replays.
    void open() {
        _ctl.reset();
        if (_log) {
            ASSERT_TRUE(_log->close());
        }
        auto l = metadata_log::open(_dir.path(), 0);
        ASSERT_TRUE(l) << l.err().message;
        _log = std::move(*l);
        auto base = std::make_shared<metadata_image>();
        base->cluster_id = "test-cluster";
        base->controller_id = node_id{cfg.node_id};
        auto img = replay_image(*_log, base);
        ASSERT_TRUE(img) << img.err().message;
        replayed = *img;
        _ctl = std::make_unique<controller>(cfg, *_log, cache, replayed);
    }

    broker_registration self(int32_t id = 1) const {
        broker_registration r;
        r.id = node_id{id};
        r.incarnation_id = uuid::random();
        r.endpoints.push_back({"PLAINTEXT", "localhost", 9092, 0});
        return r;
    }

    void register_self() {
        auto epoch = ctl().do_register_broker(self());
        ASSERT_TRUE(epoch) << epoch.err().message;
    }

    controller& ctl() { return *_ctl; }
    std::shared_ptr<const metadata_image> image() { return cache.read(); }

    protocol::create_topics_response create(const std::string& name, int32_t partitions = -1,
                                            int16_t rf = -1,
                                            std::map<std::string, std::string> configs = {}) {
        protocol::create_topics_request req;
        auto& t = req.topics.emplace_back();
        t.name = name;
        t.num_partitions = partitions;
        t.replication_factor = rf;
        for (const auto& [k, v] : configs) {
            auto& c = t.configs.emplace_back();
            c.name = k;
            c.value = v;
        }
        return ctl().do_create_topics(req);
    }

    config::broker_config cfg = one_node_config({{"num.partitions", "3"}});
    metadata_cache cache;
    std::shared_ptr<const metadata_image> replayed;

  private:
    temp_dir _dir;
    std::unique_ptr<metadata_log> _log;
    std::unique_ptr<controller> _ctl;
};

// Field-by-field equality of what records build (the offset included).
inline void expect_same_image(const metadata_image& a, const metadata_image& b) {
    EXPECT_EQ(a.offset, b.offset);
    EXPECT_EQ(a.cluster_id, b.cluster_id);
    EXPECT_EQ(a.controller_id, b.controller_id);
    ASSERT_EQ(a.brokers.size(), b.brokers.size());
    for (const auto& [id, x] : a.brokers) {
        const auto& y = b.brokers.at(id);
        EXPECT_EQ(x.incarnation_id, y.incarnation_id);
        EXPECT_EQ(x.epoch, y.epoch);
        EXPECT_EQ(x.rack, y.rack);
        EXPECT_EQ(x.fenced, y.fenced);
        ASSERT_EQ(x.endpoints.size(), y.endpoints.size());
        for (size_t i = 0; i < x.endpoints.size(); ++i) {
            EXPECT_EQ(x.endpoints[i].listener_name, y.endpoints[i].listener_name);
            EXPECT_EQ(x.endpoints[i].host, y.endpoints[i].host);
            EXPECT_EQ(x.endpoints[i].port, y.endpoints[i].port);
        }
    }
    ASSERT_EQ(a.topics_by_name.size(), b.topics_by_name.size());
    EXPECT_EQ(a.topics_by_id.size(), b.topics_by_id.size());
    for (const auto& [name, t] : a.topics_by_name) {
        const topic_image* u = b.topic(name);
        ASSERT_TRUE(u) << name;
        EXPECT_EQ(t->id, u->id) << name;
        EXPECT_EQ(t->partitions, u->partitions) << name;
        EXPECT_EQ(b.topic(t->id), u);
    }
    EXPECT_EQ(a.topic_configs, b.topic_configs);
    EXPECT_EQ(a.broker_configs, b.broker_configs);
    EXPECT_EQ(a.features, b.features);
    EXPECT_EQ(a.producer_ids.next_producer_id, b.producer_ids.next_producer_id);
    EXPECT_EQ(a.producer_ids.broker_id, b.producer_ids.broker_id);
}

}  // namespace samsa::metadata::testing
