// What stops an SSL listener at start: every bad setting is an
// INVALID_CONFIG naming the key, never a listener that fails each handshake.
#include "security/tls_context.h"

#include <gtest/gtest.h>

namespace samsa::security {
namespace {

config::tls_config base() {
    config::tls_config c;
    c.listener = "SSL";
    c.keystore_type = "PEM";
    c.truststore_type = "PEM";
    c.enabled_protocols = {"TLSv1.2", "TLSv1.3"};
    c.protocol = "TLSv1.3";
    return c;
}

std::string failure(const config::tls_config& c) {
    auto r = make_server_context(c);
    EXPECT_FALSE(r);
    if (r) {
        return "";
    }
    EXPECT_EQ(r.err().code, error_code::invalid_config);
    return r.err().message;
}

bool has(const std::string& text, const std::string& needle) {
    return text.find(needle) != std::string::npos;
}

TEST(tls_context, needs_a_keystore) {
    EXPECT_TRUE(has(failure(base()), "no keystore"));
}

TEST(tls_context, reads_pem_only) {
    auto c = base();
    c.keystore_type = "JKS";
    c.keystore_location = "/server.jks";
    EXPECT_TRUE(has(failure(c), "ssl.keystore.type JKS is not supported"));
    c = base();
    c.keystore_location = "/dev/null";
    c.truststore_type = "PKCS12";
    EXPECT_TRUE(has(failure(c), "ssl.keystore.location /dev/null"));
}

TEST(tls_context, names_a_missing_or_bad_keystore_file) {
    auto c = base();
    c.keystore_location = "/nonexistent/server.pem";
    EXPECT_TRUE(has(failure(c), "ssl.keystore.location /nonexistent/server.pem"));
    c = base();
    c.keystore_certificate_chain = "-----BEGIN CERTIFICATE-----\nnot base64\n";
    EXPECT_TRUE(has(failure(c), "ssl.keystore.certificate.chain and ssl.keystore.key go together"));
    c.keystore_key = "garbage";
    EXPECT_TRUE(has(failure(c), "ssl.keystore.certificate.chain"));
}

TEST(tls_context, refuses_unknown_versions_and_cipher_suites) {
    auto c = base();
    c.enabled_protocols = {"TLSv1.1"};
    EXPECT_TRUE(has(failure(c), "TLSv1.1 is not supported"));
    c = base();
    c.enabled_protocols = {"TLSv1.3"};
    c.protocol = "TLSv1.2";
    EXPECT_TRUE(has(failure(c), "ssl.protocol TLSv1.2 is below"));
    c = base();
    c.cipher_suites = {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_NO_SUCH_SUITE"};
    EXPECT_TRUE(has(failure(c), "TLS_NO_SUCH_SUITE"));
}

TEST(tls_context, client_auth_needs_a_truststore) {
    auto c = base();
    c.keystore_location = "/nonexistent.pem";
    c.client_auth = config::client_auth::required;
    // The keystore is reported first; with none, the missing truststore would be.
    EXPECT_TRUE(has(failure(c), "ssl.keystore.location"));
}

// As a client of another node's SSL listener the keystore is optional (it
// is presented only for ssl.client.auth) and the system's CAs stand in for a
// missing truststore; what is configured must still be readable.
TEST(tls_context, client_needs_no_keystore_and_falls_back_to_system_cas) {
    auto c = base();
    auto tls = make_client_tls(c);
    ASSERT_TRUE(tls) << tls.err().message;
    EXPECT_TRUE((*tls)->verify_hostname);
    EXPECT_NE((*tls)->context, nullptr);
    c.verify_hostname = false;
    tls = make_client_tls(c);
    ASSERT_TRUE(tls);
    EXPECT_FALSE((*tls)->verify_hostname);
}

TEST(tls_context, refuses_a_password_for_a_pem_truststore) {
    // Kafka refuses it rather than ignore it: a PEM truststore holds no secret.
    auto c = base();
    c.truststore_location = "/etc/ssl/certs/ca-certificates.crt";
    c.truststore_password = "secret";
    auto tls = make_client_tls(c);
    ASSERT_FALSE(tls);
    EXPECT_EQ(tls.err().code, error_code::invalid_config);
    EXPECT_TRUE(has(tls.err().message, "ssl.truststore.password cannot be specified for PEM"));
}

TEST(tls_context, client_names_a_bad_keystore_or_truststore) {
    auto c = base();
    c.keystore_location = "/nonexistent/client.pem";
    auto tls = make_client_tls(c);
    ASSERT_FALSE(tls);
    EXPECT_TRUE(has(tls.err().message, "ssl.keystore.location /nonexistent/client.pem"));
    c = base();
    c.truststore_location = "/nonexistent/ca.pem";
    tls = make_client_tls(c);
    ASSERT_FALSE(tls);
    EXPECT_TRUE(has(tls.err().message, "ssl.truststore.location /nonexistent/ca.pem"));
    c = base();
    c.enabled_protocols = {"TLSv1.1"};
    tls = make_client_tls(c);
    ASSERT_FALSE(tls);
    EXPECT_TRUE(has(tls.err().message, "TLSv1.1 is not supported"));
}

}  // namespace
}  // namespace samsa::security
