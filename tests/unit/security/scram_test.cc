// SCRAM-SHA-256/512 on the broker: RFC 7677's example exchange, a client
// written from RFC 5802 for SHA-512, and every way the exchange can fail.
#include <gtest/gtest.h>

#include <vector>

#include "security/sasl/scram.h"
#include "security/sasl/scram_server.h"

namespace samsa::security::sasl {
namespace {

bytes_view text(const std::string& s) {
    return as_bytes_view(s);
}

std::string str(const bytes& b) {
    return std::string(b.begin(), b.end());
}

bytes from_base64(const std::string& s) {
    auto b = base64_decode(s);
    EXPECT_TRUE(b) << s;
    return b ? *b : bytes{};
}

// RFC 7677 section 3: user "user", password "pencil".
constexpr const char* rfc_salt = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr const char* rfc_client_nonce = "rOprNGfwEbeRWgbNEkqO";
constexpr const char* rfc_server_nonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";

scram_credential rfc_credential() {
    const bytes salt = from_base64(rfc_salt);
    return scram_credential_from_salted(
        scram_mechanism::sha256, salt,
        scram_salted_password(scram_mechanism::sha256, "pencil", salt, 4096), 4096);
}

scram_server rfc_server() {
    return scram_server(
        scram_mechanism::sha256,
        [](const std::string& user) -> std::optional<scram_credential> {
            if (user == "user") {
                return rfc_credential();
            }
            return std::nullopt;
        },
        rfc_server_nonce);
}

TEST(scram, mechanisms_are_named_and_numbered_as_kafka_does) {
    EXPECT_EQ(scram_mechanism_named("SCRAM-SHA-256"), scram_mechanism::sha256);
    EXPECT_EQ(scram_mechanism_named("SCRAM-SHA-512"), scram_mechanism::sha512);
    EXPECT_EQ(scram_mechanism_named("scram-sha-256"), scram_mechanism::unknown);
    EXPECT_EQ(int(scram_mechanism::sha256), 1);
    EXPECT_EQ(int(scram_mechanism::sha512), 2);
    EXPECT_EQ(scram_mechanism_name(scram_mechanism::sha512), "SCRAM-SHA-512");
}

TEST(scram, base64_round_trips_and_refuses_what_is_not_base64) {
    for (const std::string& s :
         std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)}) {
        auto back = base64_decode(base64_encode(text(s)));
        ASSERT_TRUE(back) << s;
        EXPECT_EQ(str(*back), s);
    }
    for (const char* bad : {"abc", "ab=c", "a===", "ab,c", "ab c", "=abc"}) {
        EXPECT_FALSE(base64_decode(bad)) << bad;
    }
}

TEST(scram_server, answers_rfc_7677s_example_exchange) {
    auto s = rfc_server();
    auto first = s.evaluate(text(std::string("n,,n=user,r=") + rfc_client_nonce));
    ASSERT_TRUE(first) << first.err().message;
    EXPECT_FALSE(first->complete);
    EXPECT_EQ(str(first->challenge), std::string("r=") + rfc_client_nonce + rfc_server_nonce +
                                         ",s=" + rfc_salt + ",i=4096");
    auto final = s.evaluate(text(std::string("c=biws,r=") + rfc_client_nonce + rfc_server_nonce +
                                 ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="));
    ASSERT_TRUE(final) << final.err().message;
    EXPECT_TRUE(final->complete);
    EXPECT_EQ(final->user, "user");
    EXPECT_EQ(str(final->challenge), "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
    EXPECT_EQ(s.evaluate(text("more")).err().code, error_code::illegal_sasl_state);
}

// A client following RFC 5802, for a mechanism the RFC gives no example of.
struct scram_client {
    scram_mechanism m;
    std::string user, password, nonce = "fyko+d2lbbFgONRv9qkxdawL";
    std::string bare() const { return "n=" + user + ",r=" + nonce; }
    std::string first() const { return "n,," + bare(); }
    std::string nonce_prefix;  // librdkafka 2.0 repeats its nonce in the final message
    std::string final(const std::string& server_first, std::string* expected_v) const {
        auto r_end = server_first.find(",s=");
        auto s_end = server_first.find(",i=");
        const std::string full_nonce = server_first.substr(2, r_end - 2);
        const bytes salt = from_base64(server_first.substr(r_end + 3, s_end - r_end - 3));
        const int iterations = std::stoi(server_first.substr(s_end + 3));
        const bytes salted = scram_salted_password(m, password, salt, iterations);
        const std::string without_proof = "c=biws,r=" + nonce_prefix + full_nonce;
        const std::string auth = bare() + "," + server_first + "," + without_proof;
        bytes client_key = scram_hmac(m, salted, text("Client Key"));
        const bytes signature = scram_hmac(m, scram_hash(m, client_key), text(auth));
        for (size_t i = 0; i < client_key.size(); ++i) {
            client_key[i] ^= signature[i];
        }
        *expected_v = "v=" + base64_encode(scram_hmac(m, scram_hmac(m, salted, text("Server Key")),
                                                      text(auth)));
        return without_proof + ",p=" + base64_encode(client_key);
    }
};

scram_server server_for(scram_mechanism m, const std::string& user, const std::string& password) {
    const bytes salt{1, 2, 3, 4, 5, 6, 7, 8};
    auto c =
        scram_credential_from_salted(m, salt, scram_salted_password(m, password, salt, 4096), 4096);
    return scram_server(m, [user, c](const std::string& u) -> std::optional<scram_credential> {
        if (u == user) {
            return c;
        }
        return std::nullopt;
    });
}

TEST(scram_server, authenticates_a_sha512_client_and_proves_itself) {
    auto s = server_for(scram_mechanism::sha512, "alice", "alice-secret");
    scram_client c{scram_mechanism::sha512, "alice", "alice-secret"};
    auto first = s.evaluate(text(c.first()));
    ASSERT_TRUE(first) << first.err().message;
    std::string expected_v;
    auto final = s.evaluate(text(c.final(str(first->challenge), &expected_v)));
    ASSERT_TRUE(final) << final.err().message;
    EXPECT_TRUE(final->complete);
    EXPECT_EQ(final->user, "alice");
    EXPECT_EQ(str(final->challenge), expected_v);
}

void expect_failed(const result<sasl_step>& r, const char* mechanism) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, error_code::sasl_authentication_failed);
    EXPECT_EQ(r.err().message,
              std::string("Authentication failed during authentication due to invalid "
                          "credentials with SASL mechanism ") +
                  mechanism);
}

// Kafka accepts a final nonce that ends with the server-first one.
TEST(scram_server, accepts_librdkafkas_repeated_client_nonce) {
    auto s = server_for(scram_mechanism::sha256, "alice", "alice-secret");
    scram_client c{scram_mechanism::sha256, "alice", "alice-secret"};
    c.nonce_prefix = c.nonce;
    auto first = s.evaluate(text(c.first()));
    ASSERT_TRUE(first);
    std::string v;
    auto final = s.evaluate(text(c.final(str(first->challenge), &v)));
    ASSERT_TRUE(final) << final.err().message;
    EXPECT_EQ(str(final->challenge), v);
}

TEST(scram_server, a_wrong_password_fails_the_final_step) {
    auto s = server_for(scram_mechanism::sha256, "alice", "alice-secret");
    scram_client c{scram_mechanism::sha256, "alice", "not-the-secret"};
    auto first = s.evaluate(text(c.first()));
    ASSERT_TRUE(first);
    std::string v;
    expect_failed(s.evaluate(text(c.final(str(first->challenge), &v))), "SCRAM-SHA-256");
}

TEST(scram_server, a_failed_re_authentication_says_so) {
    scram_server s(
        scram_mechanism::sha512,
        [](const std::string&) -> std::optional<scram_credential> { return std::nullopt; },
        std::nullopt, true);
    auto r = s.evaluate(text("n,,n=alice,r=abc"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().message,
              "Authentication failed during re-authentication due to invalid credentials with "
              "SASL mechanism SCRAM-SHA-512");
}

TEST(scram_server, an_unknown_user_fails_the_first_step) {
    auto s = server_for(scram_mechanism::sha256, "alice", "alice-secret");
    expect_failed(s.evaluate(text("n,,n=bob,r=abc")), "SCRAM-SHA-256");
    EXPECT_EQ(s.evaluate(text("n,,n=alice,r=abc")).err().code, error_code::illegal_sasl_state);
}

TEST(scram_server, refuses_malformed_and_unserved_client_first_messages) {
    for (const char* bad : {"", "n,,", "p=tls-server-end-point,,n=alice,r=abc", "y,,n=alice,r=abc",
                            "n,,r=abc,n=alice", "n,,n=alice", "n,,n=,r=abc", "n,,n=al=ice,r=abc",
                            "n,,n=alice,r=", "n,x,n=alice,r=abc", "n,,n=alice,r=abc,tokenauth=true",
                            "n,,m=ext,n=alice,r=abc", "n,,n=alice,r=a\x7f"}) {
        auto s = server_for(scram_mechanism::sha256, "alice", "alice-secret");
        auto r = s.evaluate(text(bad));
        EXPECT_FALSE(r) << bad;
    }
}

TEST(scram_server, an_authorization_id_must_be_the_user) {
    auto s = server_for(scram_mechanism::sha256, "alice", "alice-secret");
    ASSERT_TRUE(s.evaluate(text("n,a=alice,n=alice,r=abc")));
    auto other = server_for(scram_mechanism::sha256, "alice", "alice-secret");
    auto r = other.evaluate(text("n,a=bob,n=alice,r=abc"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().message,
              "Authentication failed: Client requested an authorization id that is different "
              "from username");
}

TEST(scram_server, decodes_escaped_user_names) {
    auto s = server_for(scram_mechanism::sha256, "a,b=c", "secret");
    EXPECT_TRUE(s.evaluate(text("n,,n=a=2Cb=3Dc,r=abc")));
}

TEST(scram_server, refuses_a_final_message_with_another_nonce_or_a_bad_proof) {
    scram_client c{scram_mechanism::sha256, "alice", "alice-secret"};
    for (int variant = 0; variant < 5; ++variant) {
        auto s = server_for(scram_mechanism::sha256, "alice", "alice-secret");
        auto first = s.evaluate(text(c.first()));
        ASSERT_TRUE(first);
        std::string v;
        std::string final = c.final(str(first->challenge), &v);
        switch (variant) {
            case 0:  // the client's nonce alone
                final = "c=biws,r=" + c.nonce + final.substr(final.find(",p="));
                break;
            case 4:  // the server's nonce with something after it
                final = "c=biws,r=" + str(first->challenge).substr(2, 56) + "x" +
                        final.substr(final.find(",p="));
                break;
            case 1:  // a proof that is not base64
                final = final.substr(0, final.find(",p=")) + ",p=@@@@";
                break;
            case 2:  // a proof of the wrong length
                final = final.substr(0, final.find(",p=")) + ",p=AAAA";
                break;
            case 3:  // no proof
                final = final.substr(0, final.find(",p="));
                break;
        }
        expect_failed(s.evaluate(text(final)), "SCRAM-SHA-256");
    }
}

}  // namespace
}  // namespace samsa::security::sasl
