// AlterUserScramCredentials on the controller: what becomes a record, what
// each malformed alteration answers, and that the credentials survive a
// restart and a snapshot.
#include <gtest/gtest.h>

#include "controller_fixture.h"
#include "metadata/image_records.h"
#include "metadata/metadata_delta.h"
#include "security/sasl/scram.h"

namespace samsa::metadata {
namespace {

using security::sasl::scram_mechanism;
using testing::controller_fixture;
using request = protocol::alter_user_scram_credentials_request;

request::scram_credential_upsertion upsert(const std::string& name,
                                           scram_mechanism m = scram_mechanism::sha256,
                                           int32_t iterations = 4096) {
    request::scram_credential_upsertion u;
    u.name = name;
    u.mechanism = int8_t(m);
    u.iterations = iterations;
    u.salt = {9, 8, 7, 6};
    u.salted_password = security::sasl::scram_salted_password(
        m == scram_mechanism::unknown ? scram_mechanism::sha256 : m, name + "-secret", u.salt,
        iterations);
    return u;
}

request::scram_credential_deletion remove(const std::string& name,
                                          scram_mechanism m = scram_mechanism::sha256) {
    request::scram_credential_deletion d;
    d.name = name;
    d.mechanism = int8_t(m);
    return d;
}

class controller_scram : public controller_fixture {
  protected:
    void SetUp() override {
        controller_fixture::SetUp();
        register_self();
    }

    // user -> (error code, message)
    std::map<std::string, std::pair<int16_t, std::string>> alter(request req) {
        auto r = ctl().do_alter_user_scram_credentials(req);
        std::map<std::string, std::pair<int16_t, std::string>> out;
        for (const auto& e : r.results) {
            out[e.user] = {e.error_code, e.error_message.value_or("")};
        }
        return out;
    }
};

TEST_F(controller_scram, an_upsertion_records_the_derived_keys_not_the_password) {
    request req;
    req.upsertions = {upsert("alice"), upsert("bob", scram_mechanism::sha512, 8192)};
    auto r = alter(req);
    EXPECT_EQ(r.at("alice").first, 0);
    EXPECT_EQ(r.at("bob").first, 0);

    auto alice = image()->find_scram_credential("alice", scram_mechanism::sha256);
    ASSERT_TRUE(alice);
    const auto& u = req.upsertions[0];
    EXPECT_EQ(*alice, security::sasl::scram_credential_from_salted(scram_mechanism::sha256, u.salt,
                                                                   u.salted_password, 4096));
    EXPECT_NE(alice->stored_key, u.salted_password);
    EXPECT_FALSE(image()->find_scram_credential("alice", scram_mechanism::sha512));
    EXPECT_EQ(image()->find_scram_credential("bob", scram_mechanism::sha512)->iterations, 8192);

    open();  // a restart replays the records
    EXPECT_EQ(image()->find_scram_credential("alice", scram_mechanism::sha256), alice);

    // A snapshot's records rebuild the same credentials.
    metadata_delta d(std::make_shared<metadata_image>());
    for (const auto& rec : image_to_records(*image())) {
        ASSERT_TRUE(d.apply(rec));
    }
    EXPECT_EQ(d.build(0)->scram_credentials, image()->scram_credentials);
}

TEST_F(controller_scram, a_deletion_removes_one_mechanism) {
    request add;
    add.upsertions = {upsert("alice")};
    ASSERT_EQ(alter(add).at("alice").first, 0);
    add.upsertions = {upsert("alice", scram_mechanism::sha512)};
    ASSERT_EQ(alter(add).at("alice").first, 0);

    request del;
    del.deletions = {remove("alice")};
    EXPECT_EQ(alter(del).at("alice").first, 0);
    EXPECT_FALSE(image()->find_scram_credential("alice", scram_mechanism::sha256));
    EXPECT_TRUE(image()->find_scram_credential("alice", scram_mechanism::sha512));

    auto again = alter(del);
    EXPECT_EQ(again.at("alice"),
              std::pair(to_wire(error_code::resource_not_found),
                        std::string("Attempt to delete a user credential that does not exist")));

    del.deletions = {remove("alice", scram_mechanism::sha512)};
    EXPECT_EQ(alter(del).at("alice").first, 0);
    EXPECT_TRUE(image()->scram_credentials.empty());
}

TEST_F(controller_scram, refuses_each_malformed_alteration_with_kafkas_answer) {
    request req;
    req.upsertions = {upsert(""),
                      upsert("few", scram_mechanism::sha256, 4095),
                      upsert("many", scram_mechanism::sha256, 16385),
                      upsert("nomech", scram_mechanism::unknown),
                      upsert("twice"),
                      upsert("twice", scram_mechanism::sha512),
                      upsert("fine")};
    req.deletions = {remove("both")};
    req.upsertions.push_back(upsert("both"));
    auto r = alter(req);
    using p = std::pair<int16_t, std::string>;
    EXPECT_EQ(r.at(""),
              p(to_wire(error_code::unacceptable_credential), "Username must not be empty"));
    EXPECT_EQ(r.at("few"), p(to_wire(error_code::unacceptable_credential), "Too few iterations"));
    EXPECT_EQ(r.at("many"), p(to_wire(error_code::unacceptable_credential), "Too many iterations"));
    EXPECT_EQ(r.at("nomech"),
              p(to_wire(error_code::unsupported_sasl_mechanism), "Unknown SCRAM mechanism"));
    const p duplicate(to_wire(error_code::duplicate_resource),
                      "A user credential cannot be altered twice in the same request");
    EXPECT_EQ(r.at("twice"), duplicate);
    // "both" was not held, so its deletion failed first and the upsertion is skipped.
    EXPECT_EQ(r.at("both").first, to_wire(error_code::resource_not_found));
    EXPECT_EQ(r.at("fine").first, 0);
    EXPECT_EQ(image()->scram_credentials.size(), 1u);
    EXPECT_TRUE(image()->find_scram_credential("fine", scram_mechanism::sha256));
}

TEST_F(controller_scram, replaying_a_removal_of_what_is_not_held_is_an_error) {
    metadata_delta d(image());
    protocol::remove_user_scram_credential_record r;
    r.name = "nobody";
    r.mechanism = int8_t(scram_mechanism::sha256);
    EXPECT_FALSE(d.apply(metadata_record(r)));
    protocol::user_scram_credential_record u;
    u.name = "x";
    u.mechanism = 7;
    EXPECT_FALSE(d.apply(metadata_record(u)));
}

}  // namespace
}  // namespace samsa::metadata
