#include "server/http/basic_auth.h"

#include <gtest/gtest.h>

#include "metadata/metadata_image.h"
#include "security/sasl/scram.h"

namespace samsa::server::http {
namespace {

using security::sasl::scram_mechanism;

std::string basic(std::string_view user_colon_password) {
    const auto* p = reinterpret_cast<const uint8_t*>(user_colon_password.data());
    return "Basic " + security::sasl::base64_encode(bytes_view(p, user_colon_password.size()));
}

TEST(basic_auth_test, parses_user_and_password_and_refuses_other_shapes) {
    auto c = parse_basic_authorization(basic("alice:s3cr:et"));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->user, "alice");
    EXPECT_EQ(c->password, "s3cr:et");  // only the first colon separates
    EXPECT_TRUE(parse_basic_authorization("basic " + basic("a:b").substr(6)));
    EXPECT_FALSE(parse_basic_authorization("Bearer abc"));
    EXPECT_FALSE(parse_basic_authorization("Basic !!!"));
    EXPECT_FALSE(parse_basic_authorization(basic("no-colon")));
    EXPECT_FALSE(parse_basic_authorization(basic(":empty-user")));
    EXPECT_FALSE(parse_basic_authorization("Basic "));
}

TEST(basic_auth_test, a_password_matches_the_users_scram_credential_or_plain_entry) {
    metadata::metadata_image image;
    const bytes salt = {1, 2, 3, 4, 5, 6, 7, 8};
    for (auto m : {scram_mechanism::sha256, scram_mechanism::sha512}) {
        const bytes salted = security::sasl::scram_salted_password(m, "alice-pw", salt, 4096);
        image.scram_credentials["alice"][m] =
            security::sasl::scram_credential_from_salted(m, salt, salted, 4096);
    }
    const std::map<std::string, std::string> plain = {{"bob", "bob-pw"}};
    EXPECT_TRUE(password_matches(image, plain, {"alice", "alice-pw"}));
    EXPECT_FALSE(password_matches(image, plain, {"alice", "alice-pW"}));
    EXPECT_FALSE(password_matches(image, plain, {"alice", ""}));
    EXPECT_TRUE(password_matches(image, plain, {"bob", "bob-pw"}));
    EXPECT_FALSE(password_matches(image, plain, {"bob", "alice-pw"}));
    EXPECT_FALSE(password_matches(image, plain, {"carol", "anything"}));
}

}  // namespace
}  // namespace samsa::server::http
