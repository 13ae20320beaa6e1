// The client side of SASL, run against the broker's own servers: what one
// node sends when it dials another's SASL listener must pass there, and a
// wrong password or an impostor server must fail.
#include "security/sasl/sasl_client.h"

#include <gtest/gtest.h>

#include "common/config/broker_config_def.h"
#include "security/sasl/plain_server.h"
#include "security/sasl/scram_server.h"

namespace samsa::security::sasl {
namespace {

// Runs the exchange; the server's last step, or the first error of either side.
result<sasl_step> exchange(sasl_client& client, sasl_server& server) {
    bytes from_server;
    for (int round = 0; round < 4; ++round) {
        auto token = client.next(from_server);
        if (!token) {
            return token.err();
        }
        auto step = server.evaluate(*token);
        if (!step) {
            return step.err();
        }
        from_server = step->challenge;
        if (step->complete) {
            auto last = client.next(from_server);
            if (!last) {
                return last.err();
            }
            EXPECT_TRUE(client.complete());
            return step;
        }
    }
    return error(error_code::illegal_sasl_state, "no end");
}

scram_lookup one_user(scram_mechanism m, const std::string& user, const std::string& password) {
    const bytes salt(16, 7);
    auto salted = scram_salted_password(m, password, salt, 4096);
    auto cred = scram_credential_from_salted(m, salt, salted, 4096);
    return [user, cred](const std::string& who) -> std::optional<scram_credential> {
        if (who == user) {
            return cred;
        }
        return std::nullopt;
    };
}

TEST(sasl_client, plain_passes_the_plain_server) {
    const std::map<std::string, std::string> users{{"broker", "secret"}};
    plain_server server(users);
    auto client = make_sasl_client({"PLAIN", "broker", "secret"});
    ASSERT_TRUE(client);
    auto done = exchange(**client, server);
    ASSERT_TRUE(done) << done.err().message;
    EXPECT_EQ(done->user, "broker");
}

TEST(sasl_client, plain_with_a_wrong_password_fails) {
    const std::map<std::string, std::string> users{{"broker", "secret"}};
    plain_server server(users);
    auto client = make_sasl_client({"PLAIN", "broker", "guess"});
    ASSERT_TRUE(client);
    auto done = exchange(**client, server);
    ASSERT_FALSE(done);
    EXPECT_EQ(done.err().code, error_code::sasl_authentication_failed);
}

TEST(sasl_client, scram_passes_the_scram_server_and_checks_its_signature) {
    for (auto [m, name] : {std::pair{scram_mechanism::sha256, "SCRAM-SHA-256"},
                           std::pair{scram_mechanism::sha512, "SCRAM-SHA-512"}}) {
        scram_server server(m, one_user(m, "bro,ker=1", "secret"));
        auto client = make_sasl_client({name, "bro,ker=1", "secret"});
        ASSERT_TRUE(client);
        auto done = exchange(**client, server);
        ASSERT_TRUE(done) << name << ": " << done.err().message;
        EXPECT_EQ(done->user, "bro,ker=1");
    }
}

TEST(sasl_client, scram_with_a_wrong_password_fails) {
    const auto m = scram_mechanism::sha512;
    scram_server server(m, one_user(m, "broker", "secret"));
    auto client = make_sasl_client({"SCRAM-SHA-512", "broker", "guess"});
    ASSERT_TRUE(client);
    auto done = exchange(**client, server);
    ASSERT_FALSE(done);
    EXPECT_EQ(done.err().code, error_code::sasl_authentication_failed);
}

// A server that accepts the proof but does not know the password (its
// ServerKey differs) is caught by the signature check.
TEST(sasl_client, scram_refuses_a_server_signature_it_cannot_verify) {
    auto client = make_sasl_client({"SCRAM-SHA-256", "broker", "secret"});
    ASSERT_TRUE(client);
    auto first = (*client)->next({});
    ASSERT_TRUE(first);
    std::string first_text(first->begin(), first->end());
    const std::string nonce = first_text.substr(first_text.find("r=") + 2);
    const std::string server_first =
        "r=" + nonce + "server,s=" + base64_encode(bytes(16, 1)) + ",i=4096";
    auto final_msg = (*client)->next(bytes(server_first.begin(), server_first.end()));
    ASSERT_TRUE(final_msg);
    const std::string forged = "v=" + base64_encode(bytes(32, 9));
    auto last = (*client)->next(bytes(forged.begin(), forged.end()));
    ASSERT_FALSE(last);
    EXPECT_EQ(last.err().code, error_code::sasl_authentication_failed);
    EXPECT_FALSE((*client)->complete());
}

TEST(sasl_client, scram_refuses_a_nonce_the_client_did_not_start) {
    auto client = make_sasl_client({"SCRAM-SHA-256", "broker", "secret"});
    ASSERT_TRUE(client);
    ASSERT_TRUE((*client)->next({}));
    const std::string server_first = "r=someoneelse,s=" + base64_encode(bytes(16, 1)) + ",i=4096";
    auto r = (*client)->next(bytes(server_first.begin(), server_first.end()));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, error_code::sasl_authentication_failed);
}

TEST(sasl_client, gssapi_is_not_spoken) {
    auto client = make_sasl_client({"GSSAPI", "broker", ""});
    ASSERT_FALSE(client);
    EXPECT_EQ(client.err().code, error_code::invalid_config);
}

config::config_set with_jaas(const std::string& key, const std::string& jaas) {
    config::config_set values(config::broker_config_def());
    EXPECT_TRUE(values.set_layer(config::config_layer::static_file, {{key, jaas}}).ok());
    return values;
}

// A broker's own login comes from its listener's JAAS config, as Kafka's.
TEST(sasl_client, node_credentials_come_from_the_listeners_jaas_config) {
    auto values = with_jaas("listener.name.internal.scram-sha-512.sasl.jaas.config",
                            "org.apache.kafka.common.security.scram.ScramLoginModule required "
                            "username=\"broker\" password=\"s3cret\";");
    auto login = node_credentials(values, "INTERNAL", "SCRAM-SHA-512");
    ASSERT_TRUE(login) << login.err().message;
    EXPECT_EQ(*login, (sasl_credentials{"SCRAM-SHA-512", "broker", "s3cret"}));

    auto missing = node_credentials(values, "INTERNAL", "PLAIN");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.err().message.find("listener.name.internal.plain.sasl.jaas.config"),
              std::string::npos)
        << missing.err().message;

    auto server_only = with_jaas("listener.name.internal.plain.sasl.jaas.config",
                                 "org.apache.kafka.common.security.plain.PlainLoginModule required "
                                 "user_admin=\"admin-secret\";");
    auto no_login = node_credentials(server_only, "INTERNAL", "PLAIN");
    ASSERT_FALSE(no_login);
    EXPECT_NE(no_login.err().message.find("no username and password"), std::string::npos);
    EXPECT_EQ(no_login.err().message.find("admin-secret"), std::string::npos) << "no secret echoed";

    auto gssapi = node_credentials(values, "INTERNAL", "GSSAPI");
    ASSERT_FALSE(gssapi);
    EXPECT_EQ(gssapi.err().code, error_code::invalid_config);
}

}  // namespace
}  // namespace samsa::security::sasl
