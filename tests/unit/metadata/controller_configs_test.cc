// AlterConfigs / IncrementalAlterConfigs on the controller, and how dynamic
// broker configs layer over the static ones.
#include <gtest/gtest.h>

#include <algorithm>

#include "controller_fixture.h"
#include "metadata/config_alteration.h"
#include "metadata/config_view.h"
#include "metadata/image_records.h"

namespace samsa::metadata {
namespace {

using testing::controller_fixture;
using op = alter_config_op;

struct change {
    std::string key;
    op operation;
    std::optional<std::string> value;
};

class controller_configs : public controller_fixture {
  protected:
    void SetUp() override {
        controller_fixture::SetUp();
        register_self();
        ASSERT_EQ(create("t", 1, 1).topics.at(0).error_code, 0);
    }

    std::pair<error_code, std::string> incremental(config_resource_type type,
                                                   const std::string& name,
                                                   std::vector<change> changes,
                                                   bool validate_only = false) {
        protocol::incremental_alter_configs_request req;
        req.validate_only = validate_only;
        auto& res = req.resources.emplace_back();
        res.resource_type = int8_t(type);
        res.resource_name = name;
        for (const auto& c : changes) {
            auto& cfg = res.configs.emplace_back();
            cfg.name = c.key;
            cfg.config_operation = int8_t(c.operation);
            cfg.value = c.value;
        }
        auto r = ctl().do_incremental_alter_configs(req);
        EXPECT_EQ(r.responses.size(), 1u);
        EXPECT_EQ(r.responses.at(0).resource_name, name);
        EXPECT_EQ(r.responses.at(0).resource_type, int8_t(type));
        return {error_code(r.responses.at(0).error_code),
                r.responses.at(0).error_message.value_or("")};
    }

    std::map<std::string, std::string> topic_configs(const std::string& topic) {
        auto img = image();
        auto it = img->topic_configs.find(topic);
        return it == img->topic_configs.end() ? std::map<std::string, std::string>{} : it->second;
    }
};

TEST_F(controller_configs, incremental_set_delete_append_subtract_on_a_topic) {
    auto t = config_resource_type::topic;
    EXPECT_EQ(incremental(t, "t", {{"retention.ms", op::set, "1000"}}).first, error_code::none);
    EXPECT_EQ(topic_configs("t"), (std::map<std::string, std::string>{{"retention.ms", "1000"}}));
    // APPEND starts from the default ("delete").
    EXPECT_EQ(incremental(t, "t", {{"cleanup.policy", op::append, "compact"}}).first,
              error_code::none);
    EXPECT_EQ(topic_configs("t").at("cleanup.policy"), "delete,compact");
    EXPECT_EQ(incremental(t, "t", {{"cleanup.policy", op::subtract, "delete"}}).first,
              error_code::none);
    EXPECT_EQ(topic_configs("t").at("cleanup.policy"), "compact");
    EXPECT_EQ(incremental(t, "t", {{"retention.ms", op::del, std::nullopt}}).first,
              error_code::none);
    EXPECT_EQ(topic_configs("t"),
              (std::map<std::string, std::string>{{"cleanup.policy", "compact"}}));
}

TEST_F(controller_configs, incremental_errors_change_nothing) {
    auto t = config_resource_type::topic;
    const int64_t offset = image()->offset;
    EXPECT_EQ(incremental(t, "nope", {{"retention.ms", op::set, "1"}}),
              std::make_pair(error_code::unknown_topic_or_partition,
                             std::string("The topic 'nope' does not exist.")));
    EXPECT_EQ(incremental(t, "t", {{"retention.ms", op::set, "x"}}).first,
              error_code::invalid_config);
    EXPECT_EQ(incremental(t, "t", {{"bogus", op::set, "1"}}),
              std::make_pair(error_code::invalid_config,
                             std::string("Unknown topic config name: bogus")));
    EXPECT_EQ(incremental(t, "t", {{"retention.ms", op::append, "1"}}),
              std::make_pair(error_code::invalid_config,
                             std::string("Can't APPEND to key retention.ms because its type is "
                                         "not LIST.")));
    EXPECT_EQ(
        incremental(t, "t", {{"retention.ms", op::set, "1"}, {"retention.ms", op::del, {}}}).first,
        error_code::invalid_request);
    EXPECT_EQ(incremental(t, "", {{"retention.ms", op::set, "1"}}).first,
              error_code::invalid_request);
    EXPECT_EQ(incremental(t, "t", {{"retention.ms", op::set, "1"}}, true).first, error_code::none);
    EXPECT_EQ(image()->offset, offset);
    EXPECT_TRUE(topic_configs("t").empty());
}

// KIP-848's group configs: any group id (Kafka keeps them whether the group
// exists or not), never the default resource, checked as GroupConfig checks
// them, and in the image (and its snapshot records) for the coordinator.
TEST_F(controller_configs, group_resources) {
    auto g = config_resource_type::group;
    EXPECT_EQ(incremental(g, "", {{"consumer.session.timeout.ms", op::set, "50000"}}),
              std::make_pair(error_code::invalid_request,
                             std::string("Default group resources are not allowed.")));
    EXPECT_EQ(incremental(g, "orders", {{"consumer.session.timeout.ms", op::set, "1"}}),
              std::make_pair(error_code::invalid_config,
                             std::string("consumer.session.timeout.ms must be greater than or "
                                         "equal to group.consumer.min.session.timeout.ms")));
    EXPECT_EQ(incremental(g, "orders", {{"session.timeout.ms", op::set, "50000"}}),
              std::make_pair(error_code::invalid_config,
                             std::string("Unknown group config name: session.timeout.ms")));
    EXPECT_EQ(incremental(g, "orders", {{"consumer.session.timeout.ms", op::append, "1"}}).second,
              "Can't APPEND to key consumer.session.timeout.ms because its type is not LIST.");
    EXPECT_EQ(incremental(g, "orders",
                          {{"consumer.session.timeout.ms", op::set, "50000"},
                           {"consumer.heartbeat.interval.ms", op::set, "6000"}},
                          /*validate_only=*/true)
                  .first,
              error_code::none);
    EXPECT_TRUE(image()->group_configs.empty());
    EXPECT_EQ(incremental(g, "orders",
                          {{"consumer.session.timeout.ms", op::set, "50000"},
                           {"consumer.heartbeat.interval.ms", op::set, "6000"}})
                  .first,
              error_code::none);
    EXPECT_EQ(image()->group_configs.at("orders"),
              (std::map<std::string, std::string>{{"consumer.heartbeat.interval.ms", "6000"},
                                                  {"consumer.session.timeout.ms", "50000"}}));
    auto records = image_to_records(*image());
    EXPECT_EQ(std::count_if(records.begin(), records.end(),
                            [](const metadata_record& r) {
                                auto* c = std::get_if<protocol::config_record>(&r);
                                return c && c->resource_type == int8_t(config_resource_type::group);
                            }),
              2);
    EXPECT_EQ(incremental(g, "orders",
                          {{"consumer.session.timeout.ms", op::del, std::nullopt},
                           {"consumer.heartbeat.interval.ms", op::del, std::nullopt}})
                  .first,
              error_code::none);
    EXPECT_TRUE(image()->group_configs.empty());
}

TEST_F(controller_configs, broker_resources) {
    auto b = config_resource_type::broker;
    EXPECT_EQ(incremental(b, "1", {{"log.retention.ms", op::set, "1000"}}).first, error_code::none);
    EXPECT_EQ(incremental(b, "", {{"log.retention.ms", op::set, "2000"}}).first, error_code::none);
    EXPECT_EQ(image()->broker_configs.at("1").at("log.retention.ms"), "1000");
    EXPECT_EQ(image()->broker_configs.at("").at("log.retention.ms"), "2000");

    auto ro = incremental(b, "1", {{"log.dirs", op::set, "/x"}});
    EXPECT_EQ(ro.first, error_code::invalid_config);
    EXPECT_NE(ro.second.find("read-only"), std::string::npos) << ro.second;
    // listeners may change per broker only.
    EXPECT_EQ(incremental(b, "", {{"listeners", op::set, "PLAINTEXT://:1"}}).first,
              error_code::invalid_config);
    EXPECT_EQ(incremental(b, "1", {{"no.such.key", op::set, "1"}}).first,
              error_code::invalid_config);
    EXPECT_EQ(incremental(b, "one", {{"log.retention.ms", op::set, "1"}}),
              std::make_pair(error_code::invalid_request,
                             std::string("Unable to parse broker name as a base 10 number.")));
    EXPECT_EQ(incremental(b, "-1", {{"log.retention.ms", op::set, "1"}}).first,
              error_code::invalid_request);
    EXPECT_EQ(incremental(config_resource_type(8), "1", {}).first, error_code::invalid_request);
}

// A listener's keystore and truststore (KIP-226): per broker, in plain or
// per-listener form; never as a cluster-wide default; other ssl.* keys and
// unknown per-listener keys are refused.
TEST_F(controller_configs, listener_keystores_are_per_broker_dynamic) {
    auto b = config_resource_type::broker;
    EXPECT_EQ(incremental(b, "1",
                          {{"listener.name.ssl.ssl.keystore.location", op::set, "/k2.pem"},
                           {"ssl.truststore.location", op::set, "/ca2.pem"}})
                  .first,
              error_code::none);
    EXPECT_EQ(image()->broker_configs.at("1").at("listener.name.ssl.ssl.keystore.location"),
              "/k2.pem");
    auto cluster = incremental(b, "", {{"listener.name.ssl.ssl.keystore.location", op::set, "/k"}});
    EXPECT_EQ(cluster.first, error_code::invalid_config);
    EXPECT_NE(cluster.second.find("default cluster level"), std::string::npos) << cluster.second;
    EXPECT_EQ(
        incremental(b, "1", {{"listener.name.ssl.ssl.client.auth", op::set, "required"}}).first,
        error_code::invalid_config);
    EXPECT_EQ(incremental(b, "1", {{"listener.name.ssl.no.such.key", op::set, "1"}}).first,
              error_code::invalid_config);
}

TEST_F(controller_configs, legacy_alter_replaces_the_whole_set) {
    auto t = config_resource_type::topic;
    ASSERT_EQ(incremental(t, "t", {{"retention.ms", op::set, "1000"}}).first, error_code::none);
    protocol::alter_configs_request req;
    auto& res = req.resources.emplace_back();
    res.resource_type = int8_t(t);
    res.resource_name = "t";
    auto& c = res.configs.emplace_back();
    c.name = "segment.ms";
    c.value = "60000";
    auto r = ctl().do_alter_configs(req);
    ASSERT_EQ(r.responses.size(), 1u);
    EXPECT_EQ(r.responses[0].error_code, 0);
    EXPECT_FALSE(r.responses[0].error_message);
    EXPECT_EQ(topic_configs("t"), (std::map<std::string, std::string>{{"segment.ms", "60000"}}));

    // A resource named twice is refused once.
    req.resources.push_back(req.resources[0]);
    r = ctl().do_alter_configs(req);
    ASSERT_EQ(r.responses.size(), 1u);
    EXPECT_EQ(error_code(r.responses[0].error_code), error_code::invalid_request);
}

TEST_F(controller_configs, precedence_per_broker_over_cluster_default_over_static_over_default) {
    cfg = testing::one_node_config({{"log.retention.bytes", "100"}});
    auto source = [&](const char* key) {
        auto effective = effective_broker_config(cfg.values, *image(), cfg.node_id);
        for (const auto& e : describe_broker_configs(effective)) {
            if (e.name == key) {
                return std::make_pair(e.value.value_or("<null>"), e.source);
            }
        }
        return std::make_pair(std::string("<missing>"), config::config_source::unknown);
    };
    using src = config::config_source;
    EXPECT_EQ(source("log.segment.bytes"),
              std::make_pair(std::string("1073741824"), src::default_config));
    EXPECT_EQ(source("log.retention.bytes"),
              std::make_pair(std::string("100"), src::static_broker_config));
    auto b = config_resource_type::broker;
    ASSERT_EQ(incremental(b, "", {{"log.retention.bytes", op::set, "200"}}).first,
              error_code::none);
    EXPECT_EQ(source("log.retention.bytes"),
              std::make_pair(std::string("200"), src::dynamic_default_broker_config));
    ASSERT_EQ(incremental(b, "1", {{"log.retention.bytes", op::set, "300"}}).first,
              error_code::none);
    EXPECT_EQ(source("log.retention.bytes"),
              std::make_pair(std::string("300"), src::dynamic_broker_config));

    // A topic falls back through the same chain, with its override on top.
    auto effective = effective_broker_config(cfg.values, *image(), cfg.node_id);
    auto resolved = config::resolve_topic_config({}, effective);
    ASSERT_TRUE(resolved);
    EXPECT_EQ(resolved->config.retention_bytes, 300);
    const auto* e = resolved->find("retention.bytes");
    ASSERT_TRUE(e);
    ASSERT_GE(e->synonyms.size(), 3u);
    EXPECT_EQ(e->synonyms[0].source, src::dynamic_broker_config);
    EXPECT_EQ(e->synonyms[1].source, src::dynamic_default_broker_config);
    EXPECT_EQ(e->synonyms[2].source, src::static_broker_config);

    // The cluster-default view lists only what is set there.
    auto defaults = describe_cluster_default_configs(effective);
    ASSERT_EQ(defaults.size(), 1u);
    EXPECT_EQ(defaults[0].name, "log.retention.bytes");
    EXPECT_EQ(defaults[0].value, "200");
    EXPECT_EQ(defaults[0].source, src::dynamic_default_broker_config);
}

}  // namespace
}  // namespace samsa::metadata
