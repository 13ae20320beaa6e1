// DescribeUserScramCredentials (key 50) against the in-process broker, as
// Kafka's ScramImage.describe answers: a user with credentials is listed with
// each mechanism's iterations, also when all users are asked for (null or
// empty list); a user without any is RESOURCE_NOT_FOUND, and a user named
// twice DUPLICATE_RESOURCE, each with Kafka's message.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker_fixture.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"
#include "protocol/generated/describe_user_scram_credentials_request.h"
#include "protocol/generated/describe_user_scram_credentials_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_user_scram_credentials_request;
using protocol::describe_user_scram_credentials_response;
using result = describe_user_scram_credentials_response::describe_user_scram_credentials_result;

constexpr int8_t k_sha256 = 1;  // SCRAM-SHA-256

class describe_user_scram_credentials_test : public broker_test {
  protected:
    describe_user_scram_credentials_response describe(
        const std::optional<std::vector<std::string>>& users) {
        describe_user_scram_credentials_request req;
        if (users) {
            req.users.emplace();
            for (const auto& u : *users) {
                req.users->emplace_back().name = u;
            }
        } else {
            req.users = std::nullopt;
        }
        auto resp = broker().call<describe_user_scram_credentials_response>(req, 0);
        EXPECT_ERROR(resp.error_code, error_code::none);
        return resp;
    }
    static const result* find(const describe_user_scram_credentials_response& r,
                              const std::string& user) {
        auto it = std::find_if(r.results.begin(), r.results.end(),
                               [&](const auto& x) { return x.user == user; });
        return it == r.results.end() ? nullptr : &*it;
    }
    // A SCRAM-SHA-256 credential of 8192 iterations for `user`.
    void add_user(const std::string& user) {
        protocol::alter_user_scram_credentials_request req;
        auto& u = req.upsertions.emplace_back();
        u.name = user;
        u.mechanism = k_sha256;
        u.iterations = 8192;
        u.salt = bytes(16, 0x11);
        u.salted_password = bytes(32, 0x22);
        auto resp = broker().call<protocol::alter_user_scram_credentials_response>(req, 0);
        ASSERT_EQ(resp.results.size(), 1u);
        ASSERT_ERROR(resp.results[0].error_code, error_code::none);
        ASSERT_TRUE(broker_fixture::wait_until([&] {
            const auto* r = find(describe(std::vector<std::string>{user}), user);
            return r && r->error_code == 0;
        }));
    }
};

TEST_F(describe_user_scram_credentials_test, a_user_is_listed_by_name_and_among_all) {
    const auto user = unique_name("scram-described");
    add_user(user);
    if (HasFatalFailure()) {
        return;
    }
    auto named = describe(std::vector<std::string>{user});
    ASSERT_EQ(named.results.size(), 1u);
    EXPECT_EQ(named.results[0].user, user);
    EXPECT_ERROR(named.results[0].error_code, error_code::none);
    EXPECT_FALSE(named.results[0].error_message.has_value());
    ASSERT_EQ(named.results[0].credential_infos.size(), 1u);
    EXPECT_EQ(named.results[0].credential_infos[0].mechanism, k_sha256);
    EXPECT_EQ(named.results[0].credential_infos[0].iterations, 8192);

    // Null and empty user lists both mean every user with a credential.
    for (const auto& all : {describe(std::nullopt), describe(std::vector<std::string>{})}) {
        const auto* r = find(all, user);
        ASSERT_NE(r, nullptr);
        EXPECT_ERROR(r->error_code, error_code::none);
        EXPECT_EQ(r->credential_infos.size(), 1u);
    }
}

TEST_F(describe_user_scram_credentials_test, a_user_without_credentials_is_resource_not_found) {
    const auto user = unique_name("scram-missing");
    auto resp = describe(std::vector<std::string>{user});
    ASSERT_EQ(resp.results.size(), 1u);
    EXPECT_EQ(resp.results[0].user, user);
    EXPECT_ERROR(resp.results[0].error_code, error_code::resource_not_found);
    EXPECT_EQ(resp.results[0].error_message.value_or(""),
              "Attempt to describe a user credential that does not exist: " + user);
    EXPECT_TRUE(resp.results[0].credential_infos.empty());
}

TEST_F(describe_user_scram_credentials_test, a_user_named_twice_is_duplicate_resource) {
    const auto twice = unique_name("scram-twice");
    const auto once = unique_name("scram-once");
    auto resp = describe(std::vector<std::string>{twice, once, twice});
    ASSERT_EQ(resp.results.size(), 2u);  // one result per distinct user
    const auto* t = find(resp, twice);
    ASSERT_NE(t, nullptr);
    EXPECT_ERROR(t->error_code, error_code::duplicate_resource);
    EXPECT_EQ(
        t->error_message.value_or(""),
        "Cannot describe SCRAM credentials for the same user twice in a single request: " + twice);
    const auto* o = find(resp, once);
    ASSERT_NE(o, nullptr);
    EXPECT_ERROR(o->error_code, error_code::resource_not_found);
}

}  // namespace
}  // namespace samsa::server::test
