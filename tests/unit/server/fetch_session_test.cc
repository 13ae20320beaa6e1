// Incremental fetch sessions (KIP-227) from both ends: the follower's
// fetch_session_handler building requests, and the leader's fetch plan serving
// them from its session cache, played against each other.
#include <gtest/gtest.h>

#include <algorithm>

#include "cluster/replication/fetch_session_handler.h"
#include "server/fetch/fetch_plan.h"

namespace samsa::server {
namespace {

using cluster::replication::fetch_session_handler;
using cluster::replication::partition_fetch_state;

const uuid k_topic_a = uuid::random();
const uuid k_topic_b = uuid::random();

partition_fetch_state state(const uuid& id, int32_t partition, int64_t offset, int32_t epoch = 3) {
    partition_fetch_state s;
    s.topic = id == k_topic_a ? "a" : "b";
    s.topic_id = id;
    s.partition = partition;
    s.fetch_offset = offset;
    s.last_fetched_epoch = epoch;
    s.log_start_offset = 0;
    s.max_bytes = 1 << 20;
    s.current_leader_epoch = 4;
    return s;
}

// Partitions named in the request, as "topic-partition@offset".
std::vector<std::string> named(const protocol::fetch_request& req) {
    std::vector<std::string> out;
    for (const auto& t : req.topics) {
        for (const auto& p : t.partitions) {
            out.push_back((t.topic_id == k_topic_a ? "a-" : "b-") + std::to_string(p.partition) +
                          "@" + std::to_string(p.fetch_offset));
        }
    }
    std::sort(out.begin(), out.end());  // topics go in id order
    return out;
}

std::vector<std::string> forgotten(const protocol::fetch_request& req) {
    std::vector<std::string> out;
    for (const auto& t : req.forgotten_topics_data) {
        for (int32_t p : t.partitions) {
            out.push_back((t.topic_id == k_topic_a ? "a-" : "b-") + std::to_string(p));
        }
    }
    return out;
}

TEST(fetch_session_handler, first_request_is_full_and_asks_for_a_session) {
    fetch_session_handler h;
    protocol::fetch_request req;
    h.build({state(k_topic_a, 0, 10), state(k_topic_a, 1, 20), state(k_topic_b, 0, 5)}, req);
    EXPECT_EQ(req.session_id, 0);
    EXPECT_EQ(req.session_epoch, 0);
    EXPECT_EQ(named(req), (std::vector<std::string>{"a-0@10", "a-1@20", "b-0@5"}));
    ASSERT_EQ(req.topics.size(), 2u);  // one entry per topic
    EXPECT_EQ(req.topics[0].partitions[0].last_fetched_epoch, 3);
    EXPECT_EQ(req.topics[0].partitions[0].current_leader_epoch, 4);
    EXPECT_FALSE(h.last_was_incremental());
}

TEST(fetch_session_handler, then_names_only_what_moved_and_forgets_what_left) {
    fetch_session_handler h;
    protocol::fetch_request req;
    h.build({state(k_topic_a, 0, 10), state(k_topic_a, 1, 20), state(k_topic_b, 0, 5)}, req);
    h.handle_response(error_code::none, 77);
    EXPECT_EQ(h.session_id(), 77);
    EXPECT_EQ(h.next_epoch(), 1);

    // Nothing moved: an empty incremental request, the session serves all.
    h.build({state(k_topic_a, 0, 10), state(k_topic_a, 1, 20), state(k_topic_b, 0, 5)}, req);
    EXPECT_EQ(req.session_id, 77);
    EXPECT_EQ(req.session_epoch, 1);
    EXPECT_TRUE(named(req).empty());
    EXPECT_TRUE(forgotten(req).empty());
    h.handle_response(error_code::none, 77);

    // a-1 appended, a new leader epoch for b-0, a-0 no longer followed.
    auto b0 = state(k_topic_b, 0, 5);
    b0.current_leader_epoch = 5;
    h.build({state(k_topic_a, 1, 25), b0}, req);
    EXPECT_EQ(req.session_epoch, 2);
    EXPECT_EQ(named(req), (std::vector<std::string>{"a-1@25", "b-0@5"}));
    EXPECT_EQ(forgotten(req), (std::vector<std::string>{"a-0"}));
    h.handle_response(error_code::none, 77);
    EXPECT_EQ(h.next_epoch(), 3);

    // A partition that comes back is named in full again.
    h.build({state(k_topic_a, 0, 10), state(k_topic_a, 1, 25), b0}, req);
    EXPECT_EQ(named(req), (std::vector<std::string>{"a-0@10"}));
}

TEST(fetch_session_handler, a_lost_answer_makes_the_next_request_full_and_close_the_session) {
    fetch_session_handler h;
    protocol::fetch_request req;
    h.build({state(k_topic_a, 0, 10)}, req);
    h.handle_response(error_code::none, 9);
    h.build({state(k_topic_a, 0, 12)}, req);
    h.handle_error();
    h.build({state(k_topic_a, 0, 12)}, req);
    EXPECT_EQ(req.session_id, 9);  // (9, 0): close 9, open a new one
    EXPECT_EQ(req.session_epoch, 0);
    EXPECT_EQ(named(req), (std::vector<std::string>{"a-0@12"}));
}

TEST(fetch_session_handler, session_errors_start_over) {
    fetch_session_handler h;
    protocol::fetch_request req;
    h.build({state(k_topic_a, 0, 10)}, req);
    h.handle_response(error_code::none, 9);
    h.build({state(k_topic_a, 0, 10)}, req);
    h.handle_response(error_code::fetch_session_id_not_found, 0);
    h.build({state(k_topic_a, 0, 10)}, req);
    EXPECT_EQ(req.session_id, 0);
    EXPECT_EQ(req.session_epoch, 0);
    EXPECT_EQ(named(req).size(), 1u);

    h.handle_response(error_code::none, 11);
    h.build({state(k_topic_a, 0, 10)}, req);
    h.handle_response(error_code::invalid_fetch_session_epoch, 0);
    h.build({state(k_topic_a, 0, 10)}, req);
    EXPECT_EQ(req.session_id, 11);
    EXPECT_EQ(req.session_epoch, 0);
    EXPECT_EQ(named(req).size(), 1u);
}

TEST(fetch_session_handler, without_a_session_every_fetch_is_full) {
    fetch_session_handler h;
    protocol::fetch_request req;
    h.build({state(k_topic_a, 0, 10)}, req);
    h.handle_response(error_code::none, 0);  // the leader's cache was full
    h.build({state(k_topic_a, 0, 10)}, req);
    EXPECT_EQ(req.session_epoch, 0);
    EXPECT_EQ(named(req).size(), 1u);
}

metadata::metadata_image image_with(std::vector<std::pair<std::string, uuid>> topics) {
    metadata::metadata_image image;
    for (const auto& [name, id] : topics) {
        auto t = std::make_shared<metadata::topic_image>();
        t->name = name;
        t->id = id;
        t->partitions.resize(2);
        for (int32_t p = 0; p < 2; ++p) {
            t->partitions[size_t(p)].partition = p;
        }
        image.topics_by_name[name] = t;
        image.topics_by_id[id] = t;
    }
    return image;
}

// The leader's side: an incremental request that omits a partition still
// fetches it with the offset and last fetched epoch the session holds.
TEST(fetch_plan, an_incremental_fetch_serves_the_session_with_its_held_positions) {
    auto image = image_with({{"a", k_topic_a}, {"b", k_topic_b}});
    fetch::fetch_session_cache cache;
    auto shard_of = [](const uuid&, int32_t p) { return size_t(p); };
    fetch_session_handler h;
    std::vector<partition_fetch_state> wanted = {
        state(k_topic_a, 0, 10, 2), state(k_topic_a, 1, 20, 3), state(k_topic_b, 0, 5, 1)};
    protocol::fetch_request req;
    h.build(wanted, req);
    {
        auto plan = fetch::make_fetch_plan(req, 13, image, cache, 0, shard_of);
        ASSERT_EQ(plan.error, error_code::none);
        ASSERT_NE(plan.response_session_id, 0);
        EXPECT_FALSE(plan.incremental);
        EXPECT_EQ(plan.targets.size(), 3u);
        h.handle_response(error_code::none, plan.response_session_id);
    }
    wanted[1] = state(k_topic_a, 1, 30, 4);  // a-1 moved
    wanted.pop_back();                       // b-0 left
    h.build(wanted, req);
    ASSERT_EQ(named(req), (std::vector<std::string>{"a-1@30"}));
    auto plan = fetch::make_fetch_plan(req, 13, image, cache, 1, shard_of);
    ASSERT_EQ(plan.error, error_code::none);
    EXPECT_TRUE(plan.incremental);
    ASSERT_EQ(plan.targets.size(), 2u);
    std::map<int32_t, const fetch::fetch_target*> by_partition;
    for (const auto& t : plan.targets) {
        EXPECT_EQ(t.key.topic, "a");
        EXPECT_EQ(t.error, error_code::none);
        by_partition[t.key.partition] = &t;
    }
    ASSERT_EQ(by_partition.size(), 2u);
    EXPECT_EQ(by_partition[0]->fetch_offset, 10);
    EXPECT_EQ(by_partition[0]->last_fetched_epoch, 2);
    EXPECT_EQ(by_partition[1]->fetch_offset, 30);
    EXPECT_EQ(by_partition[1]->last_fetched_epoch, 4);
    EXPECT_EQ(by_partition[1]->shard, 1u);
}

// max.incremental.fetch.session.cache.slots=0: no session is ever made, and
// the fetch is served in full all the same (as Kafka does).
TEST(fetch_plan, no_session_slots_serves_every_fetch_without_a_session) {
    auto image = image_with({{"a", k_topic_a}});
    fetch::fetch_session_cache cache(0);
    auto shard_of = [](const uuid&, int32_t p) { return size_t(p); };
    fetch_session_handler h;
    protocol::fetch_request req;
    h.build({state(k_topic_a, 0, 10, 2)}, req);
    auto plan = fetch::make_fetch_plan(req, 13, image, cache, 0, shard_of);
    ASSERT_EQ(plan.error, error_code::none);
    EXPECT_EQ(plan.response_session_id, 0);
    EXPECT_FALSE(plan.incremental);
    ASSERT_EQ(plan.targets.size(), 1u);
    EXPECT_EQ(plan.targets[0].fetch_offset, 10);
}

// A follower may learn of a topic (and fetch it) before its leader does: the
// session keeps the partition by topic id, answers UNKNOWN_TOPIC_ID meanwhile,
// and serves it once the leader's image has the topic.
TEST(fetch_plan, a_session_partition_of_an_unknown_topic_id_resolves_once_known) {
    fetch::fetch_session_cache cache;
    auto shard_of = [](const uuid&, int32_t p) { return size_t(p); };
    fetch_session_handler h;
    std::vector<partition_fetch_state> wanted = {state(k_topic_a, 0, 0), state(k_topic_b, 1, 0)};
    protocol::fetch_request req;
    h.build(wanted, req);
    {
        auto before = image_with({{"a", k_topic_a}});
        auto plan = fetch::make_fetch_plan(req, 13, before, cache, 0, shard_of);
        ASSERT_EQ(plan.targets.size(), 2u);
        for (const auto& t : plan.targets) {
            EXPECT_EQ(t.error,
                      t.topic_id == k_topic_b ? error_code::unknown_topic_id : error_code::none);
            EXPECT_NE(t.in_session, nullptr);
        }
        h.handle_response(error_code::none, plan.response_session_id);
    }
    h.build(wanted, req);
    EXPECT_TRUE(named(req).empty());
    auto after = image_with({{"a", k_topic_a}, {"b", k_topic_b}});
    {
        auto plan = fetch::make_fetch_plan(req, 13, after, cache, 1, shard_of);
        ASSERT_TRUE(plan.incremental);
        ASSERT_EQ(plan.targets.size(), 2u);
        for (const auto& t : plan.targets) {
            EXPECT_EQ(t.error, error_code::none);
            EXPECT_EQ(t.key.topic, t.topic_id == k_topic_b ? "b" : "a");
        }
        h.handle_response(error_code::none, plan.response_session_id);
    }
    // Forgetting it by id removes it from the session.
    wanted.pop_back();
    h.build(wanted, req);
    EXPECT_EQ(forgotten(req), (std::vector<std::string>{"b-1"}));
    auto plan = fetch::make_fetch_plan(req, 13, after, cache, 2, shard_of);
    ASSERT_EQ(plan.targets.size(), 1u);
    EXPECT_EQ(plan.targets[0].key.topic, "a");
}

}  // namespace
}  // namespace samsa::server
