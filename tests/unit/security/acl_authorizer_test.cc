// The StandardAuthorizer decision (security/acl/authorizer.h) and ACL
// filters (security/acl/acl.h), rule by rule.
#include "security/acl/authorizer.h"

#include <gtest/gtest.h>

namespace samsa::security::acl {
namespace {

acl_binding binding(resource_type type, std::string name, std::string principal, operation op,
                    permission perm = permission::allow, pattern_type p = pattern_type::literal,
                    std::string host = "*") {
    return {type, std::move(name), p, std::move(principal), std::move(host), op, perm};
}

class authorizer_test : public ::testing::Test {
  protected:
    authorizer_config cfg{true, {"User:admin"}, false};
    acl_cache acls;

    bool may(std::string_view principal, operation op, std::string_view topic,
             std::string_view host = "10.0.0.1", resource_type type = resource_type::topic) {
        return authorize(cfg, acls, {principal, host}, op, type, topic);
    }
};

TEST_F(authorizer_test, without_an_acl_only_super_users_pass_unless_everyone_is_allowed) {
    EXPECT_FALSE(may("User:alice", operation::read, "t"));
    EXPECT_TRUE(may("User:admin", operation::alter, "t"));
    cfg.allow_everyone_if_no_acl_found = true;
    EXPECT_TRUE(may("User:alice", operation::read, "t"));
    // A resource that has ACLs, none for this principal, stays closed.
    acls.add(binding(resource_type::topic, "t", "User:bob", operation::read));
    EXPECT_FALSE(may("User:alice", operation::read, "t"));
    EXPECT_TRUE(may("User:alice", operation::read, "other"));
}

TEST_F(authorizer_test, no_authorizer_allows_everything) {
    cfg.enabled = false;
    EXPECT_TRUE(may("User:alice", operation::delete_, "t"));
}

TEST_F(authorizer_test, literal_wildcard_and_prefixed_patterns_apply) {
    acls.add(binding(resource_type::topic, "orders", "User:alice", operation::read));
    acls.add(binding(resource_type::topic, "*", "User:bob", operation::read));
    acls.add(binding(resource_type::topic, "pay", "User:carol", operation::write, permission::allow,
                     pattern_type::prefixed));
    EXPECT_TRUE(may("User:alice", operation::read, "orders"));
    EXPECT_FALSE(may("User:alice", operation::read, "orders2"));  // literal is exact
    EXPECT_TRUE(may("User:bob", operation::read, "anything"));
    EXPECT_TRUE(may("User:carol", operation::write, "payments"));
    EXPECT_TRUE(may("User:carol", operation::write, "pay"));
    EXPECT_FALSE(may("User:carol", operation::write, "pa"));
    // A topic ACL says nothing about a group of the same name.
    EXPECT_FALSE(may("User:alice", operation::read, "orders", "10.0.0.1", resource_type::group));
}

TEST_F(authorizer_test, a_deny_wins_and_implies_nothing) {
    acls.add(binding(resource_type::topic, "*", "User:bob", operation::all));
    acls.add(
        binding(resource_type::topic, "ledger", "User:bob", operation::write, permission::deny));
    EXPECT_FALSE(may("User:bob", operation::write, "ledger"));
    // DENY WRITE does not deny DESCRIBE, which ALL allows.
    EXPECT_TRUE(may("User:bob", operation::describe, "ledger"));
    EXPECT_TRUE(may("User:bob", operation::write, "other"));
    // A prefixed DENY for everyone covers bob too.
    acls.add(binding(resource_type::topic, "ot", "User:*", operation::all, permission::deny,
                     pattern_type::prefixed));
    EXPECT_FALSE(may("User:bob", operation::write, "other"));
    // Super users are never denied.
    EXPECT_TRUE(may("User:admin", operation::write, "ledger"));
}

TEST_F(authorizer_test, read_write_delete_and_alter_imply_describe) {
    for (auto op : {operation::read, operation::write, operation::delete_, operation::alter}) {
        acl_cache one;
        one.add(binding(resource_type::topic, "t", "User:alice", op));
        EXPECT_TRUE(authorize(cfg, one, {"User:alice", "h"}, operation::describe,
                              resource_type::topic, "t"))
            << int(op);
    }
    acl_cache configs;
    configs.add(binding(resource_type::topic, "t", "User:alice", operation::alter_configs));
    EXPECT_TRUE(authorize(cfg, configs, {"User:alice", "h"}, operation::describe_configs,
                          resource_type::topic, "t"));
    EXPECT_FALSE(authorize(cfg, configs, {"User:alice", "h"}, operation::describe,
                           resource_type::topic, "t"));
    acl_cache create;
    create.add(binding(resource_type::topic, "t", "User:alice", operation::create));
    EXPECT_FALSE(authorize(cfg, create, {"User:alice", "h"}, operation::describe,
                           resource_type::topic, "t"));
}

TEST_F(authorizer_test, hosts_and_the_any_user_principal_match) {
    acls.add(binding(resource_type::group, "g", "User:*", operation::read, permission::allow,
                     pattern_type::literal, "10.0.0.7"));
    EXPECT_TRUE(may("User:anyone", operation::read, "g", "10.0.0.7", resource_type::group));
    EXPECT_FALSE(may("User:anyone", operation::read, "g", "10.0.0.8", resource_type::group));
}

TEST_F(authorizer_test, authorize_any_finds_some_allowed_resource) {
    EXPECT_FALSE(
        authorize_any(cfg, acls, {"User:alice", "h"}, operation::write, resource_type::topic));
    acls.add(binding(resource_type::topic, "logs", "User:alice", operation::write,
                     permission::allow, pattern_type::prefixed));
    EXPECT_TRUE(
        authorize_any(cfg, acls, {"User:alice", "h"}, operation::write, resource_type::topic));
    // ... unless a DENY of every topic cancels it.
    acls.add(binding(resource_type::topic, "*", "User:alice", operation::write, permission::deny));
    EXPECT_FALSE(
        authorize_any(cfg, acls, {"User:alice", "h"}, operation::write, resource_type::topic));
    acls.remove(
        binding(resource_type::topic, "*", "User:alice", operation::write, permission::deny));
    EXPECT_TRUE(
        authorize_any(cfg, acls, {"User:alice", "h"}, operation::write, resource_type::topic));
}

TEST(acl_filter, match_finds_every_pattern_that_applies_to_a_name) {
    acl_binding_filter f;
    f.type = resource_type::topic;
    f.name = "payments";
    f.pattern = pattern_type::match;
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "payments", "User:a", operation::read)));
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "*", "User:a", operation::read)));
    EXPECT_TRUE(f.matches(binding(resource_type::topic, "pay", "User:a", operation::read,
                                  permission::allow, pattern_type::prefixed)));
    EXPECT_FALSE(f.matches(binding(resource_type::topic, "pay", "User:a", operation::read)));
    EXPECT_FALSE(f.matches(binding(resource_type::group, "payments", "User:a", operation::read)));
    acl_binding_filter any;
    EXPECT_TRUE(any.matches(binding(resource_type::group, "g", "User:b", operation::alter)));
    any.perm = permission::deny;
    EXPECT_FALSE(any.matches(binding(resource_type::group, "g", "User:b", operation::alter)));
}

TEST(acl_names, parse_and_print_as_kafka_acls_does) {
    EXPECT_EQ(name_of(resource_type::transactional_id), "TRANSACTIONAL_ID");
    EXPECT_EQ(name_of(operation::cluster_action), "CLUSTER_ACTION");
    EXPECT_EQ(parse_operation("ClusterAction"), operation::cluster_action);
    EXPECT_EQ(parse_operation("describe-configs"), operation::describe_configs);
    EXPECT_EQ(parse_resource_type("TransactionalId"), resource_type::transactional_id);
    EXPECT_EQ(parse_pattern_type("prefixed"), pattern_type::prefixed);
    EXPECT_EQ(parse_operation("unknown"), std::nullopt);
    EXPECT_EQ(parse_operation("fly"), std::nullopt);
}

}  // namespace
}  // namespace samsa::security::acl
