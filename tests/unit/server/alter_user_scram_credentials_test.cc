// AlterUserScramCredentials (key 51) against the in-process broker: an
// upsertion shows in DescribeUserScramCredentials and a deletion removes it;
// each user's alteration fails on its own with Kafka's codes and messages
// (ScramControlManager): an empty user name, an unknown mechanism, too few
// or too many iterations, a deletion of a credential that does not exist, and
// a user altered twice in one request.
#include <gtest/gtest.h>

#include <map>

#include "broker_fixture.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"
#include "protocol/generated/describe_user_scram_credentials_request.h"
#include "protocol/generated/describe_user_scram_credentials_response.h"

namespace samsa::server::test {
namespace {

using protocol::alter_user_scram_credentials_request;
using protocol::alter_user_scram_credentials_response;
using protocol::describe_user_scram_credentials_request;
using protocol::describe_user_scram_credentials_response;
using result = alter_user_scram_credentials_response::alter_user_scram_credentials_result;

constexpr int8_t k_sha256 = 1;  // SCRAM-SHA-256
constexpr int8_t k_sha512 = 2;  // SCRAM-SHA-512

alter_user_scram_credentials_request::scram_credential_upsertion upsertion(
    const std::string& user, int8_t mechanism = k_sha256, int32_t iterations = 4096) {
    alter_user_scram_credentials_request::scram_credential_upsertion u;
    u.name = user;
    u.mechanism = mechanism;
    u.iterations = iterations;
    u.salt = bytes{1, 2, 3, 4, 5, 6, 7, 8};
    // The broker keeps the stored and server keys derived from it; any bytes do.
    u.salted_password = bytes(mechanism == k_sha512 ? 64 : 32, 0x5a);
    return u;
}

alter_user_scram_credentials_request::scram_credential_deletion deletion(
    const std::string& user, int8_t mechanism = k_sha256) {
    alter_user_scram_credentials_request::scram_credential_deletion d;
    d.name = user;
    d.mechanism = mechanism;
    return d;
}

class alter_user_scram_credentials_test : public broker_test {
  protected:
    // The answer per user.
    std::map<std::string, result> alter(const alter_user_scram_credentials_request& req) {
        auto resp = broker().call<alter_user_scram_credentials_response>(req, 0);
        std::map<std::string, result> out;
        for (const auto& r : resp.results) {
            EXPECT_TRUE(out.emplace(r.user, r).second) << "user answered twice: " << r.user;
        }
        return out;
    }
    result alter_one(const alter_user_scram_credentials_request& req, const std::string& user) {
        auto out = alter(req);
        EXPECT_EQ(out.size(), 1u);
        return out[user];
    }
    // The user's mechanisms and iterations, as DescribeUserScramCredentials
    // answers them (empty for RESOURCE_NOT_FOUND).
    std::map<int8_t, int32_t> described(const std::string& user) {
        describe_user_scram_credentials_request req;
        req.users.emplace().emplace_back().name = user;
        auto resp = broker().call<describe_user_scram_credentials_response>(req, 0);
        std::map<int8_t, int32_t> out;
        if (resp.results.size() != 1) {
            ADD_FAILURE() << "expected one result";
            return out;
        }
        for (const auto& c : resp.results[0].credential_infos) {
            out[c.mechanism] = c.iterations;
        }
        return out;
    }
};

TEST_F(alter_user_scram_credentials_test, an_upsertion_is_described_and_a_deletion_removes_it) {
    const auto user = unique_name("scram-user");
    alter_user_scram_credentials_request up;
    up.upsertions.push_back(upsertion(user, k_sha256, 4096));
    auto r = alter_one(up, user);
    ASSERT_ERROR(r.error_code, error_code::none);
    EXPECT_FALSE(r.error_message.has_value());
    EXPECT_TRUE(broker_fixture::wait_until([&] {
        return described(user) == std::map<int8_t, int32_t>{{k_sha256, 4096}};
    }));

    alter_user_scram_credentials_request del;
    del.deletions.push_back(deletion(user, k_sha256));
    ASSERT_ERROR(alter_one(del, user).error_code, error_code::none);
    EXPECT_TRUE(broker_fixture::wait_until([&] { return described(user).empty(); }));
}

TEST_F(alter_user_scram_credentials_test, an_empty_user_name_is_unacceptable) {
    alter_user_scram_credentials_request req;
    req.upsertions.push_back(upsertion(""));
    auto r = alter_one(req, "");
    EXPECT_ERROR(r.error_code, error_code::unacceptable_credential);
    EXPECT_EQ(r.error_message.value_or(""), "Username must not be empty");

    alter_user_scram_credentials_request del;
    del.deletions.push_back(deletion(""));
    r = alter_one(del, "");
    EXPECT_ERROR(r.error_code, error_code::unacceptable_credential);
    EXPECT_EQ(r.error_message.value_or(""), "Username must not be empty");
}

TEST_F(alter_user_scram_credentials_test, an_unknown_mechanism_is_unsupported) {
    const auto user = unique_name("scram-user");
    for (int8_t mechanism : {0, 3}) {
        SCOPED_TRACE(int(mechanism));
        alter_user_scram_credentials_request req;
        req.upsertions.push_back(upsertion(user, mechanism));
        auto r = alter_one(req, user);
        EXPECT_ERROR(r.error_code, error_code::unsupported_sasl_mechanism);
        EXPECT_EQ(r.error_message.value_or(""), "Unknown SCRAM mechanism");

        alter_user_scram_credentials_request del;
        del.deletions.push_back(deletion(user, mechanism));
        r = alter_one(del, user);
        EXPECT_ERROR(r.error_code, error_code::unsupported_sasl_mechanism);
        EXPECT_EQ(r.error_message.value_or(""), "Unknown SCRAM mechanism");
    }
}

TEST_F(alter_user_scram_credentials_test, iterations_outside_4096_to_16384_are_unacceptable) {
    const auto user = unique_name("scram-user");
    const std::pair<int32_t, const char*> bad[] = {
        {4095, "Too few iterations"},
        {0, "Too few iterations"},
        {-1, "Too few iterations"},
        {16385, "Too many iterations"},
    };
    for (const auto& [iterations, message] : bad) {
        SCOPED_TRACE(iterations);
        alter_user_scram_credentials_request req;
        req.upsertions.push_back(upsertion(user, k_sha512, iterations));
        auto r = alter_one(req, user);
        EXPECT_ERROR(r.error_code, error_code::unacceptable_credential);
        EXPECT_EQ(r.error_message.value_or(""), message);
    }
    // The bounds themselves are taken.
    alter_user_scram_credentials_request edge;
    edge.upsertions.push_back(upsertion(user, k_sha512, 16384));
    ASSERT_ERROR(alter_one(edge, user).error_code, error_code::none);
    EXPECT_TRUE(broker_fixture::wait_until([&] {
        return described(user) == std::map<int8_t, int32_t>{{k_sha512, 16384}};
    }));
}

TEST_F(alter_user_scram_credentials_test, deleting_a_missing_credential_is_resource_not_found) {
    const auto user = unique_name("scram-user");
    alter_user_scram_credentials_request req;
    req.deletions.push_back(deletion(user, k_sha512));
    auto r = alter_one(req, user);
    EXPECT_ERROR(r.error_code, error_code::resource_not_found);
    EXPECT_EQ(r.error_message.value_or(""),
              "Attempt to delete a user credential that does not exist");
}

TEST_F(alter_user_scram_credentials_test, a_user_altered_twice_fails_as_a_whole) {
    const auto twice = unique_name("scram-user");
    const auto other = unique_name("scram-user");
    alter_user_scram_credentials_request req;
    req.upsertions.push_back(upsertion(twice, k_sha256));
    req.upsertions.push_back(upsertion(twice, k_sha512));
    req.upsertions.push_back(upsertion(other, k_sha256));
    auto out = alter(req);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_ERROR(out[twice].error_code, error_code::duplicate_resource);
    EXPECT_EQ(out[twice].error_message.value_or(""),
              "A user credential cannot be altered twice in the same request");
    EXPECT_ERROR(out[other].error_code, error_code::none);
    // Neither of the duplicate's operations took effect; the other user's did.
    EXPECT_TRUE(broker_fixture::wait_until([&] {
        return described(other) == std::map<int8_t, int32_t>{{k_sha256, 4096}};
    }));
    EXPECT_TRUE(described(twice).empty());
}

}  // namespace
}  // namespace samsa::server::test
