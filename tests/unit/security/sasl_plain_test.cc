// JAAS config parsing and the PLAIN exchange.
#include <gtest/gtest.h>

#include "security/sasl/jaas_config.h"
#include "security/sasl/plain_server.h"

namespace samsa::security::sasl {
namespace {

TEST(jaas_config, reads_a_login_module_with_quoted_and_bare_options) {
    auto m = parse_jaas_config(
        "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
        "  username=\"admin\" password=\"a \\\"quoted\\\" secret\" user_alice=\"alice-secret\" "
        "debug=true;");
    ASSERT_TRUE(m) << m.err().message;
    EXPECT_EQ(m->login_module, "org.apache.kafka.common.security.plain.PlainLoginModule");
    EXPECT_EQ(m->flag, "required");
    EXPECT_EQ(m->options.at("password"), "a \"quoted\" secret");
    EXPECT_EQ(m->options.at("user_alice"), "alice-secret");
    EXPECT_EQ(m->options.at("debug"), "true");
}

TEST(jaas_config, names_what_is_wrong_without_echoing_values) {
    for (const char* bad : {"", "Module", "Module mandatory;", "Module required a=\"b\"",
                            "Module required a=\"unterminated;", "Module required a;",
                            "Module required; Other required;"}) {
        auto m = parse_jaas_config(bad);
        EXPECT_FALSE(m) << bad;
        if (!m) {
            EXPECT_EQ(m.err().code, error_code::invalid_config);
            EXPECT_EQ(m.err().message.find("unterminated"), std::string::npos);
        }
    }
}

TEST(plain_server, authenticates_a_known_user) {
    std::map<std::string, std::string> users{{"alice", "alice-secret"}};
    plain_server s(users);
    std::string token("\0alice\0alice-secret", 19);
    auto step = s.evaluate(as_bytes_view(token));
    ASSERT_TRUE(step) << step.err().message;
    EXPECT_TRUE(step->complete);
    EXPECT_EQ(step->user, "alice");
    EXPECT_TRUE(step->challenge.empty());
    // One token only.
    auto again = s.evaluate(as_bytes_view(token));
    ASSERT_FALSE(again);
    EXPECT_EQ(again.err().code, error_code::illegal_sasl_state);
}

TEST(plain_server, refuses_with_kafkas_messages) {
    std::map<std::string, std::string> users{{"alice", "alice-secret"}};
    auto refuse = [&](std::string token) {
        plain_server s(users);
        auto step = s.evaluate(as_bytes_view(token));
        EXPECT_FALSE(step);
        if (step) {
            return std::string();
        }
        EXPECT_EQ(step.err().code, error_code::sasl_authentication_failed);
        return step.err().message;
    };
    using namespace std::string_literals;
    EXPECT_EQ(refuse("\0alice\0wrong"s), "Authentication failed: Invalid username or password");
    EXPECT_EQ(refuse("\0bob\0alice-secret"s),
              "Authentication failed: Invalid username or password");
    EXPECT_EQ(refuse("\0\0pw"s), "Authentication failed: username not specified");
    EXPECT_EQ(refuse("\0alice\0"s), "Authentication failed: password not specified");
    EXPECT_EQ(refuse("alice-secret"s),
              "Authentication failed: Invalid SASL/PLAIN response: expected 3 tokens");
    EXPECT_EQ(refuse("admin\0alice\0alice-secret"s),
              "Authentication failed: Client requested an authorization id that is different "
              "from username");
    // The authorization id may be the user itself.
    plain_server s(users);
    EXPECT_TRUE(s.evaluate(as_bytes_view("alice\0alice\0alice-secret"s)));
}

}  // namespace
}  // namespace samsa::security::sasl
