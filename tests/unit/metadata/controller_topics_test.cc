// CreateTopics / DeleteTopics / CreatePartitions on the controller: each
// validation error with Kafka's code and message, and what gets recorded.
#include <gtest/gtest.h>

#include "controller_fixture.h"

namespace samsa::metadata {
namespace {

using testing::controller_fixture;

class controller_topics : public controller_fixture {
  protected:
    void SetUp() override {
        controller_fixture::SetUp();
        register_self();
    }

    // The single topic result's error code, and its message ("" for null).
    static std::pair<error_code, std::string> outcome(const protocol::create_topics_response& r) {
        EXPECT_EQ(r.topics.size(), 1u);
        if (r.topics.empty()) {
            return {error_code::none, ""};
        }
        return {error_code(r.topics[0].error_code), r.topics[0].error_message.value_or("")};
    }
};

TEST_F(controller_topics, register_broker_bootstraps_and_unfences) {
    auto img = image();
    ASSERT_TRUE(img->brokers.count(node_id{1}));
    const auto& b = img->brokers.at(node_id{1});
    EXPECT_FALSE(b.fenced);
    EXPECT_EQ(b.epoch, 1);  // offset 0 holds the metadata.version record
    EXPECT_EQ(img->features.at("metadata.version"), written_metadata_version);
    EXPECT_EQ(img->offset, 2);
}

TEST_F(controller_topics, defaults_come_from_the_broker_config) {
    auto r = create("orders");
    ASSERT_EQ(outcome(r).first, error_code::none) << outcome(r).second;
    const auto& res = r.topics[0];
    EXPECT_FALSE(res.error_message);
    EXPECT_EQ(res.num_partitions, 3);  // num.partitions=3 in the fixture
    EXPECT_EQ(res.replication_factor, 1);
    EXPECT_FALSE(res.topic_id.is_zero());
    ASSERT_TRUE(res.configs);
    bool saw_retention = false;
    for (const auto& c : *res.configs) {
        if (c.name == "retention.ms") {
            saw_retention = true;
            EXPECT_EQ(c.value, "604800000");
            EXPECT_EQ(c.config_source, int8_t(config::config_source::default_config));
        }
    }
    EXPECT_TRUE(saw_retention);

    const topic_image* t = image()->topic("orders");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->id, res.topic_id);
    ASSERT_EQ(t->partitions.size(), 3u);
    for (const auto& p : t->partitions) {
        EXPECT_EQ(p.replicas, to_node_ids({1}));
        EXPECT_EQ(p.isr, to_node_ids({1}));
        EXPECT_EQ(p.leader, node_id{1});
        EXPECT_EQ(p.leader_epoch, 0);
        EXPECT_EQ(p.partition_epoch, 0);
    }
}

TEST_F(controller_topics, configs_are_recorded_and_returned) {
    auto r = create("t", 1, 1, {{"retention.ms", "1000"}, {"cleanup.policy", "compact"}});
    ASSERT_EQ(outcome(r).first, error_code::none) << outcome(r).second;
    EXPECT_EQ(image()->topic_configs.at("t"),
              (std::map<std::string, std::string>{{"cleanup.policy", "compact"},
                                                  {"retention.ms", "1000"}}));
    for (const auto& c : *r.topics[0].configs) {
        if (c.name == "retention.ms") {
            EXPECT_EQ(c.value, "1000");
            EXPECT_EQ(c.config_source, int8_t(config::config_source::dynamic_topic_config));
        }
    }
}

TEST_F(controller_topics, existing_name_is_topic_already_exists) {
    ASSERT_EQ(outcome(create("t")).first, error_code::none);
    EXPECT_EQ(outcome(create("t")), std::make_pair(error_code::topic_already_exists,
                                                   std::string("Topic 't' already exists.")));
}

TEST_F(controller_topics, illegal_names_are_invalid_topic) {
    EXPECT_EQ(outcome(create("")).first, error_code::invalid_topic_exception);
    EXPECT_EQ(outcome(create("..")).first, error_code::invalid_topic_exception);
    EXPECT_EQ(outcome(create("a b")).first, error_code::invalid_topic_exception);
    EXPECT_EQ(outcome(create(std::string(250, 'x'))).first, error_code::invalid_topic_exception);
    EXPECT_EQ(outcome(create(std::string(249, 'x'))).first, error_code::none);
    EXPECT_TRUE(outcome(create("a b")).second.find("illegal") != std::string::npos);
}

TEST_F(controller_topics, dot_underscore_collision_is_invalid_topic) {
    ASSERT_EQ(outcome(create("a.b")).first, error_code::none);
    EXPECT_EQ(outcome(create("a_b")),
              std::make_pair(error_code::invalid_topic_exception,
                             std::string("Topic 'a_b' collides with existing topic: a.b")));
    // Within one request too.
    protocol::create_topics_request req;
    req.topics.emplace_back().name = "x.y";
    req.topics.back().num_partitions = -1;
    req.topics.back().replication_factor = -1;
    req.topics.emplace_back().name = "x_y";
    req.topics.back().num_partitions = -1;
    req.topics.back().replication_factor = -1;
    auto r = ctl().do_create_topics(req);
    ASSERT_EQ(r.topics.size(), 2u);
    EXPECT_EQ(r.topics[0].error_code, 0);
    EXPECT_EQ(error_code(r.topics[1].error_code), error_code::invalid_topic_exception);
}

TEST_F(controller_topics, cluster_metadata_topic_cannot_be_created) {
    EXPECT_EQ(outcome(create("__cluster_metadata")),
              std::make_pair(error_code::invalid_request,
                             std::string("Creation of internal topic __cluster_metadata is "
                                         "prohibited.")));
    // Kafka lets clients create the other internal topics.
    EXPECT_EQ(outcome(create("__consumer_offsets", 2, 1)).first, error_code::none);
}

TEST_F(controller_topics, duplicate_names_in_one_request) {
    protocol::create_topics_request req;
    for (int i = 0; i < 2; ++i) {
        auto& t = req.topics.emplace_back();
        t.name = "dup";
        t.num_partitions = 1;
        t.replication_factor = 1;
    }
    auto r = ctl().do_create_topics(req);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(error_code(r.topics[0].error_code), error_code::invalid_request);
    EXPECT_EQ(r.topics[0].error_message, "Duplicate topic name.");
    EXPECT_FALSE(image()->topic("dup"));
}

TEST_F(controller_topics, replication_factor_above_live_brokers) {
    EXPECT_EQ(outcome(create("t", 1, 3)),
              std::make_pair(error_code::invalid_replication_factor,
                             std::string("Unable to replicate the partition 3 time(s): The target "
                                         "replication factor of 3 cannot be reached because only "
                                         "1 broker(s) are registered.")));
    EXPECT_FALSE(image()->topic("t"));
}

TEST_F(controller_topics, non_positive_counts) {
    EXPECT_EQ(outcome(create("t", 1, 0)).first, error_code::invalid_replication_factor);
    EXPECT_EQ(outcome(create("t", 1, -2)).first, error_code::invalid_replication_factor);
    EXPECT_EQ(outcome(create("t", 0, 1)),
              std::make_pair(error_code::invalid_partitions,
                             std::string("Number of partitions was set to an invalid non-positive "
                                         "value.")));
    EXPECT_EQ(outcome(create("t", -5, 1)).first, error_code::invalid_partitions);
    EXPECT_EQ(outcome(create("t", 10001, 1)).first, error_code::policy_violation);
}

TEST_F(controller_topics, bad_configs_are_invalid_config) {
    EXPECT_EQ(outcome(create("t", 1, 1, {{"no.such.config", "1"}})),
              std::make_pair(error_code::invalid_config,
                             std::string("Unknown topic config name: no.such.config")));
    EXPECT_EQ(outcome(create("t", 1, 1, {{"retention.ms", "soon"}})).first,
              error_code::invalid_config);
    protocol::create_topics_request req;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.num_partitions = 1;
    t.replication_factor = 1;
    t.configs.emplace_back().name = "retention.ms";
    t.configs.back().value = std::nullopt;
    EXPECT_EQ(outcome(ctl().do_create_topics(req)),
              std::make_pair(error_code::invalid_config,
                             std::string("Null value not supported for topic configs: "
                                         "retention.ms")));
    EXPECT_FALSE(image()->topic("t"));
}

protocol::create_topics_request with_assignments(
    std::vector<std::pair<int32_t, std::vector<int32_t>>> parts, int32_t partitions = -1,
    int16_t rf = -1) {
    protocol::create_topics_request req;
    auto& t = req.topics.emplace_back();
    t.name = "manual";
    t.num_partitions = partitions;
    t.replication_factor = rf;
    for (auto& [p, brokers] : parts) {
        auto& a = t.assignments.emplace_back();
        a.partition_index = p;
        a.broker_ids = to_node_ids(brokers);
    }
    return req;
}

TEST_F(controller_topics, explicit_assignments) {
    auto r = ctl().do_create_topics(with_assignments({{1, {1}}, {0, {1}}}));
    ASSERT_EQ(outcome(r).first, error_code::none) << outcome(r).second;
    EXPECT_EQ(image()->topic("manual")->partitions.size(), 2u);
}

TEST_F(controller_topics, bad_explicit_assignments) {
    auto code_msg = [&](protocol::create_topics_request req) {
        return outcome(ctl().do_create_topics(req));
    };
    EXPECT_EQ(code_msg(with_assignments({{0, {1}}}, -1, 1)),
              std::make_pair(error_code::invalid_request,
                             std::string("A manual partition assignment was specified, but "
                                         "replication factor was not set to -1.")));
    EXPECT_EQ(code_msg(with_assignments({{0, {1}}}, 1, -1)).first, error_code::invalid_request);
    EXPECT_EQ(code_msg(with_assignments({{0, {1}}, {0, {1}}})),
              std::make_pair(error_code::invalid_replica_assignment,
                             std::string("Found multiple manual partition assignments for "
                                         "partition 0")));
    EXPECT_EQ(code_msg(with_assignments({{0, {2}}})),
              std::make_pair(error_code::invalid_replica_assignment,
                             std::string("The manual partition assignment includes broker 2, but "
                                         "no such broker is registered.")));
    EXPECT_EQ(code_msg(with_assignments({{0, {1, 1}}})),
              std::make_pair(error_code::invalid_replica_assignment,
                             std::string("The manual partition assignment includes the broker 1 "
                                         "more than once.")));
    EXPECT_EQ(code_msg(with_assignments({{0, {}}})),
              std::make_pair(error_code::invalid_replica_assignment,
                             std::string("The manual partition assignment includes an empty "
                                         "replica list.")));
    EXPECT_EQ(code_msg(with_assignments({{0, {1}}, {2, {1}}})),
              std::make_pair(error_code::invalid_replica_assignment,
                             std::string("partitions should be a consecutive 0-based integer "
                                         "sequence")));
    EXPECT_FALSE(image()->topic("manual"));
}

TEST_F(controller_topics, validate_only_records_nothing) {
    protocol::create_topics_request req;
    auto& t = req.topics.emplace_back();
    t.name = "dry";
    t.num_partitions = 2;
    t.replication_factor = 1;
    req.validate_only = true;
    const int64_t offset = image()->offset;
    auto r = ctl().do_create_topics(req);
    EXPECT_EQ(outcome(r).first, error_code::none);
    EXPECT_EQ(r.topics[0].num_partitions, 2);
    EXPECT_FALSE(image()->topic("dry"));
    EXPECT_EQ(image()->offset, offset);
}

TEST_F(controller_topics, delete_by_name_and_by_id) {
    ASSERT_EQ(outcome(create("a", 1, 1, {{"retention.ms", "5"}})).first, error_code::none);
    ASSERT_EQ(outcome(create("b")).first, error_code::none);
    const uuid b_id = image()->topic("b")->id;

    protocol::delete_topics_request by_name;
    by_name.topic_names = {"a", "nope"};
    auto r = ctl().do_delete_topics(by_name);
    ASSERT_EQ(r.responses.size(), 2u);
    EXPECT_EQ(r.responses[0].name, "nope");
    EXPECT_EQ(error_code(r.responses[0].error_code), error_code::unknown_topic_or_partition);
    EXPECT_EQ(r.responses[1].name, "a");
    EXPECT_EQ(r.responses[1].error_code, 0);
    EXPECT_FALSE(image()->topic("a"));
    EXPECT_FALSE(image()->topic_configs.count("a"));

    protocol::delete_topics_request by_id;
    by_id.topics.emplace_back().topic_id = b_id;
    by_id.topics.emplace_back().topic_id = testing::test_uuid(99);
    r = ctl().do_delete_topics(by_id);
    ASSERT_EQ(r.responses.size(), 2u);
    EXPECT_EQ(error_code(r.responses[0].error_code), error_code::unknown_topic_id);
    EXPECT_EQ(r.responses[1].name, "b");
    EXPECT_EQ(r.responses[1].topic_id, b_id);
    EXPECT_EQ(r.responses[1].error_code, 0);
    EXPECT_FALSE(image()->topic(b_id));
}

TEST_F(controller_topics, delete_request_errors) {
    ASSERT_EQ(outcome(create("a")).first, error_code::none);
    const uuid a_id = image()->topic("a")->id;
    protocol::delete_topics_request req;
    req.topics.emplace_back();  // neither name nor id
    auto& both = req.topics.emplace_back();
    both.name = "a";
    both.topic_id = a_id;
    req.topics.emplace_back().name = "x";
    req.topics.emplace_back().name = "x";
    auto r = ctl().do_delete_topics(req);
    std::map<std::string, std::string> messages;
    for (const auto& t : r.responses) {
        EXPECT_EQ(error_code(t.error_code), error_code::invalid_request);
        messages[t.name.value_or("<null>")] = t.error_message.value_or("");
    }
    EXPECT_EQ(messages["<null>"], "Neither topic name nor id were specified.");
    EXPECT_EQ(messages["a"], "You may not specify both topic name and topic id.");
    EXPECT_EQ(messages["x"], "Duplicate topic name.");
    EXPECT_TRUE(image()->topic("a"));

    protocol::delete_topics_request name_and_its_id;
    name_and_its_id.topics.emplace_back().topic_id = a_id;
    name_and_its_id.topics.emplace_back().name = "a";
    r = ctl().do_delete_topics(name_and_its_id);
    ASSERT_EQ(r.responses.size(), 1u);
    EXPECT_EQ(r.responses[0].error_message,
              "The provided topic name maps to an ID that was already supplied.");
    EXPECT_TRUE(image()->topic("a"));
}

TEST_F(controller_topics, internal_topics_may_be_deleted) {
    ASSERT_EQ(outcome(create("__consumer_offsets", 1, 1)).first, error_code::none);
    protocol::delete_topics_request req;
    req.topic_names = {"__consumer_offsets"};
    auto r = ctl().do_delete_topics(req);
    EXPECT_EQ(r.responses.at(0).error_code, 0);
    EXPECT_FALSE(image()->topic("__consumer_offsets"));
}

protocol::create_partitions_request grow(const std::string& name, int32_t count) {
    protocol::create_partitions_request req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.count = count;
    t.assignments = std::nullopt;
    return req;
}

TEST_F(controller_topics, create_partitions_grows_the_topic) {
    ASSERT_EQ(outcome(create("t", 2, 1)).first, error_code::none);
    auto r = ctl().do_create_partitions(grow("t", 5));
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].error_code, 0);
    EXPECT_FALSE(r.results[0].error_message);
    const auto& parts = image()->topic("t")->partitions;
    ASSERT_EQ(parts.size(), 5u);
    EXPECT_EQ(parts[4].partition, 4);
    EXPECT_EQ(parts[4].leader, node_id{1});
}

TEST_F(controller_topics, create_partitions_errors) {
    ASSERT_EQ(outcome(create("t", 2, 1)).first, error_code::none);
    auto one = [&](protocol::create_partitions_request req) {
        auto r = ctl().do_create_partitions(req);
        EXPECT_EQ(r.results.size(), 1u);
        return std::make_pair(error_code(r.results.at(0).error_code),
                              r.results.at(0).error_message.value_or(""));
    };
    EXPECT_EQ(one(grow("t", 2)), std::make_pair(error_code::invalid_partitions,
                                                std::string("Topic already has 2 partition(s).")));
    EXPECT_EQ(one(grow("t", 1)),
              std::make_pair(error_code::invalid_partitions,
                             std::string("The topic t currently has 2 partition(s); 1 would not "
                                         "be an increase.")));
    EXPECT_EQ(one(grow("nope", 3)).first, error_code::unknown_topic_or_partition);

    auto req = grow("t", 4);
    req.topics[0].assignments.emplace();
    req.topics[0].assignments->emplace_back().broker_ids = to_node_ids({1});
    EXPECT_EQ(one(req),
              std::make_pair(error_code::invalid_replica_assignment,
                             std::string("Attempted to add 2 additional partition(s), but only 1 "
                                         "assignment(s) were specified.")));
    req.topics[0].assignments->emplace_back().broker_ids = to_node_ids({1, 1});
    EXPECT_EQ(one(req).first, error_code::invalid_replica_assignment);
    req.topics[0].assignments->back().broker_ids = to_node_ids({1});
    auto dry = req;
    dry.validate_only = true;
    EXPECT_EQ(one(dry).first, error_code::none);
    EXPECT_EQ(image()->topic("t")->partitions.size(), 2u);
    EXPECT_EQ(one(req).first, error_code::none);
    EXPECT_EQ(image()->topic("t")->partitions.size(), 4u);
}

TEST_F(controller_topics, producer_id_blocks_are_consecutive) {
    auto a = ctl().do_allocate_producer_ids(producer_id_block_size);
    auto b = ctl().do_allocate_producer_ids(producer_id_block_size);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->first_producer_id, 0);
    EXPECT_EQ(b->first_producer_id, 1000);
    EXPECT_EQ(image()->producer_ids.next_producer_id, 2000);
    EXPECT_EQ(image()->producer_ids.broker_id, node_id{1});
}

TEST_F(controller_topics, restart_replays_every_topic_partition_and_config) {
    ASSERT_EQ(outcome(create("a", 4, 1, {{"retention.ms", "1000"}})).first, error_code::none);
    ASSERT_EQ(outcome(create("b", 1, 1)).first, error_code::none);
    ASSERT_EQ(outcome(create("c", 1, 1)).first, error_code::none);
    ASSERT_EQ(ctl().do_create_partitions(grow("b", 3)).results[0].error_code, 0);
    protocol::delete_topics_request del;
    del.topic_names = {"c"};
    ASSERT_EQ(ctl().do_delete_topics(del).responses[0].error_code, 0);
    protocol::incremental_alter_configs_request alter;
    auto& res = alter.resources.emplace_back();
    res.resource_type = int8_t(config_resource_type::broker);
    res.resource_name = "";
    auto& c = res.configs.emplace_back();
    c.name = "log.retention.ms";
    c.value = "5000";
    ASSERT_EQ(ctl().do_incremental_alter_configs(alter).responses[0].error_code, 0);
    ASSERT_TRUE(ctl().do_allocate_producer_ids(1000));
    auto before = image();

    open();
    testing::expect_same_image(*before, *replayed);
    EXPECT_EQ(replayed->topic("a")->id, before->topic("a")->id);
    EXPECT_FALSE(replayed->topic("c"));

    // The restarted controller continues from the replayed state.
    register_self();
    EXPECT_EQ(outcome(create("a")).first, error_code::topic_already_exists);
    auto more = ctl().do_allocate_producer_ids(1000);
    ASSERT_TRUE(more);
    EXPECT_EQ(more->first_producer_id, 1000);
}

}  // namespace
}  // namespace samsa::metadata
