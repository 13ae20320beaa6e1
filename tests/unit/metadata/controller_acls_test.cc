// CreateAcls and DeleteAcls on the controller (metadata/acl_changes.h): what
// becomes a record, Kafka's messages for ACLs it refuses, filters, and that
// the ACLs survive a restart and a snapshot into the authorizer's cache.
#include <gtest/gtest.h>

#include "controller_fixture.h"
#include "metadata/acl_changes.h"
#include "metadata/image_records.h"
#include "metadata/metadata_delta.h"

namespace samsa::metadata {
namespace {

namespace acl = security::acl;
using testing::controller_fixture;
using creation = protocol::create_acls_request::acl_creation;
using filter = protocol::delete_acls_request::delete_acls_filter;

creation acl_on(acl::resource_type type, const std::string& name, const std::string& principal,
                acl::operation op, acl::permission perm = acl::permission::allow,
                acl::pattern_type pattern = acl::pattern_type::literal) {
    creation c;
    c.resource_type = int8_t(type);
    c.resource_name = name;
    c.resource_pattern_type = int8_t(pattern);
    c.principal = principal;
    c.host = "*";
    c.operation = int8_t(op);
    c.permission_type = int8_t(perm);
    return c;
}

creation read_topic(const std::string& topic, const std::string& user = "User:alice") {
    return acl_on(acl::resource_type::topic, topic, user, acl::operation::read);
}

filter match_all() {
    filter f;
    f.resource_type_filter = int8_t(acl::resource_type::any);
    f.resource_name_filter = std::nullopt;
    f.pattern_type_filter = int8_t(acl::pattern_type::any);
    f.principal_filter = std::nullopt;
    f.host_filter = std::nullopt;
    f.operation = int8_t(acl::operation::any);
    f.permission_type = int8_t(acl::permission::any);
    return f;
}

class controller_acls : public controller_fixture {
  protected:
    void SetUp() override {
        controller_fixture::SetUp();
        register_self();
    }

    std::vector<std::pair<int16_t, std::string>> create_acls(std::vector<creation> creations) {
        protocol::create_acls_request req;
        req.creations = std::move(creations);
        std::vector<std::pair<int16_t, std::string>> out;
        for (const auto& r : ctl().do_create_acls(req).results) {
            out.emplace_back(r.error_code, r.error_message.value_or(""));
        }
        return out;
    }

    bool allows(const std::string& principal, acl::operation op, const std::string& topic) {
        acl::authorizer_config cfg;
        cfg.enabled = true;
        return acl::authorize(cfg, image()->acl_cache, {principal, "127.0.0.1"}, op,
                              acl::resource_type::topic, topic);
    }
};

TEST_F(controller_acls, created_acls_reach_the_authorizer_and_survive_a_restart) {
    auto r =
        create_acls({read_topic("orders"),
                     acl_on(acl::resource_type::topic, "pay", "User:bob", acl::operation::write,
                            acl::permission::allow, acl::pattern_type::prefixed)});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].first, 0);
    EXPECT_EQ(r[1].first, 0);
    EXPECT_EQ(image()->acls.size(), 2u);
    EXPECT_TRUE(allows("User:alice", acl::operation::read, "orders"));
    EXPECT_TRUE(allows("User:bob", acl::operation::write, "payments"));
    EXPECT_FALSE(allows("User:alice", acl::operation::write, "orders"));

    // The same ACL again: success, and no second copy.
    EXPECT_EQ(create_acls({read_topic("orders")})[0].first, 0);
    EXPECT_EQ(image()->acls.size(), 2u);

    open();  // a restart replays the records
    EXPECT_EQ(image()->acls.size(), 2u);
    EXPECT_TRUE(allows("User:bob", acl::operation::write, "payments"));

    // A snapshot's records rebuild the same ACLs, with their ids.
    metadata_delta d(std::make_shared<metadata_image>());
    for (const auto& rec : image_to_records(*image())) {
        ASSERT_TRUE(d.apply(rec));
    }
    auto rebuilt = d.build(0);
    EXPECT_EQ(rebuilt->acls, image()->acls);
    EXPECT_EQ(rebuilt->acl_cache.size(), 2u);
}

TEST_F(controller_acls, invalid_acls_answer_invalid_request_with_kafkas_messages) {
    auto any_type = read_topic("t");
    any_type.resource_type = int8_t(acl::resource_type::any);
    auto match = read_topic("t");
    match.resource_pattern_type = int8_t(acl::pattern_type::match);
    auto any_op = read_topic("t");
    any_op.operation = int8_t(acl::operation::any);
    auto no_perm = read_topic("t");
    no_perm.permission_type = int8_t(acl::permission::any);
    auto cluster = acl_on(acl::resource_type::cluster, "prod", "User:a", acl::operation::alter);
    auto empty = read_topic("");
    auto principal = read_topic("t", "alice");
    auto r = create_acls({any_type, match, any_op, no_perm, cluster, empty, principal});
    const int16_t invalid = to_wire(error_code::invalid_request);
    ASSERT_EQ(r.size(), 7u);
    for (const auto& [code, message] : r) {
        EXPECT_EQ(code, invalid) << message;
    }
    EXPECT_EQ(r[0].second, "Invalid resourceType 1");
    EXPECT_EQ(r[1].second, "Invalid patternType MATCH");
    EXPECT_EQ(r[2].second, "Invalid operation 1");
    EXPECT_EQ(r[3].second, "Invalid permissionType 1");
    EXPECT_EQ(r[4].second, "The only valid name for the CLUSTER resource is kafka-cluster");
    EXPECT_EQ(r[5].second, "Invalid empty resource name");
    EXPECT_EQ(r[6].second,
              "Could not parse principal from `alice` (no colon is present separating the "
              "principal type from the principal name)");
    EXPECT_TRUE(image()->acls.empty());
}

TEST_F(controller_acls, delete_removes_what_each_filter_matches) {
    create_acls({read_topic("a"), read_topic("b"), read_topic("a", "User:bob"),
                 acl_on(acl::resource_type::group, "g", "User:alice", acl::operation::read)});
    protocol::delete_acls_request req;
    auto alice_topics = match_all();
    alice_topics.resource_type_filter = int8_t(acl::resource_type::topic);
    alice_topics.principal_filter = "User:alice";
    auto unknown = match_all();
    unknown.operation = int8_t(acl::operation::unknown);
    // Overlapping filters: one record per ACL removed.
    auto topic_a = match_all();
    topic_a.resource_name_filter = "a";
    req.filters = {alice_topics, unknown, topic_a};
    auto r = ctl().do_delete_acls(req);
    ASSERT_EQ(r.filter_results.size(), 3u);
    EXPECT_EQ(r.filter_results[0].error_code, 0);
    EXPECT_EQ(r.filter_results[0].matching_acls.size(), 2u);
    EXPECT_EQ(r.filter_results[1].error_code, to_wire(error_code::invalid_request));
    EXPECT_EQ(r.filter_results[1].error_message.value_or(""), "Unknown entryFilter.");
    EXPECT_EQ(r.filter_results[2].matching_acls.size(), 2u);
    ASSERT_EQ(image()->acls.size(), 1u);
    EXPECT_EQ(image()->acls.begin()->second.type, acl::resource_type::group);
    EXPECT_EQ(image()->acl_cache.size(), 1u);
}

}  // namespace
}  // namespace samsa::metadata
