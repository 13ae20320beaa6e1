// `samsa storage format --add-scram` arguments (tools/scram_argument.h): the
// forms kafka-storage.sh takes, the keys derived as the SCRAM exchange checks
// them, and Kafka's message for each malformed one.
#include "tools/scram_argument.h"

#include <gtest/gtest.h>

#include "security/sasl/scram.h"

namespace samsa::tools {
namespace {

namespace sasl = security::sasl;

std::string message_of(const std::string& argument) {
    auto r = parse_scram_argument(argument);
    EXPECT_FALSE(r) << argument;
    return r ? "" : r.err().message;
}

TEST(scram_argument, a_password_gives_keys_for_that_password) {
    auto r = parse_scram_argument("SCRAM-SHA-256=[name=alice,password=alice-secret]");
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->name, "alice");
    EXPECT_EQ(r->mechanism, int8_t(sasl::scram_mechanism::sha256));
    EXPECT_EQ(r->iterations, 4096);
    EXPECT_EQ(r->salt.size(), 32u);
    const auto expected = sasl::scram_credential_from_salted(
        sasl::scram_mechanism::sha256, r->salt,
        sasl::scram_salted_password(sasl::scram_mechanism::sha256, "alice-secret", r->salt, 4096),
        4096);
    EXPECT_EQ(r->stored_key, expected.stored_key);
    EXPECT_EQ(r->server_key, expected.server_key);
    // Each format draws its own salt.
    auto again = parse_scram_argument("SCRAM-SHA-256=[name=alice,password=alice-secret]");
    ASSERT_TRUE(again);
    EXPECT_NE(again->salt, r->salt);
}

TEST(scram_argument, salt_iterations_and_a_salted_password_are_taken_as_given) {
    const bytes salt{'s', 'a', 'l', 't', '-', '1'};
    const auto salted =
        sasl::scram_salted_password(sasl::scram_mechanism::sha512, "bob-secret", salt, 8192);
    auto r = parse_scram_argument(" SCRAM-SHA-512=[name=bob,iterations=8192,salt=\"" +
                                  sasl::base64_encode(salt) + "\",saltedpassword=\"" +
                                  sasl::base64_encode(salted) + "\"] ");
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->mechanism, int8_t(sasl::scram_mechanism::sha512));
    EXPECT_EQ(r->iterations, 8192);
    EXPECT_EQ(r->salt, salt);
    const auto expected =
        sasl::scram_credential_from_salted(sasl::scram_mechanism::sha512, salt, salted, 8192);
    EXPECT_EQ(r->stored_key, expected.stored_key);
    EXPECT_EQ(r->server_key, expected.server_key);
    // The same with the password: the same keys.
    auto p = parse_scram_argument("SCRAM-SHA-512=[name=bob,iterations=8192,salt=" +
                                  sasl::base64_encode(salt) + ",password=bob-secret]");
    ASSERT_TRUE(p) << p.err().message;
    EXPECT_EQ(p->stored_key, expected.stored_key);
}

TEST(scram_argument, malformed_arguments_get_kafkas_messages) {
    EXPECT_EQ(message_of("SCRAM-SHA-256"),
              "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-256'");
    EXPECT_EQ(message_of("SCRAM-SHA-1=[name=a,password=b]"),
              "The add-scram mechanism SCRAM-SHA-1 is not supported.");
    EXPECT_EQ(message_of("SCRAM-SHA-256=name=a]"), "Expected configuration string to start with [");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a,password=b"),
              "Expected configuration string to end with ]");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a,password]"),
              "No equals sign found in SCRAM component: password");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[password=b]"), "You must supply 'name' to add-scram");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a]"),
              "You must supply one of 'password' or 'saltedpassword' to add-scram");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a,saltedpassword=YWJj]"),
              "You must supply 'salt' with 'saltedpassword' to add-scram");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a,password=b,salt=***]"),
              "Failed to decode given salt: ***");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a,password=b,iterations=many]"),
              "Failed to parse iterations count: many");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a,password=b,colour=red,size=9]"),
              "Unknown SCRAM configurations: colour, size");
    EXPECT_EQ(message_of("SCRAM-SHA-256=[name=a,password=b,iterations=4095]"),
              "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256");
    EXPECT_EQ(message_of("SCRAM-SHA-512=[name=a,password=b,iterations=16385]"),
              "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_512");
}

}  // namespace
}  // namespace samsa::tools
