// libFuzzer target: what an SSL listener reads from outside before and
// during the handshake (ClientHello, records, alerts), against a server
// context built as a listener's is (security::make_server_context: inline PEM
// keystore, TLS 1.2-1.3, the configured verify mode), and what an SSL
// listener's peer sends this node's own TLS client (make_client_tls: the
// ServerHello and certificate path). The first byte picks the side and
// whether client certificates are requested; the rest arrives as the peer's
// bytes, in two reads split at a NUL, through memory BIOs.
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "security/tls_context.h"

using namespace samsa;

namespace {

std::string pem_of(int (*write)(BIO*, void*), void* object) {
    BIO* bio = BIO_new(BIO_s_mem());
    write(bio, object);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    std::string out(data, size_t(n));
    BIO_free(bio);
    return out;
}

// A P-256 key and a self-signed certificate for it, made once.
struct identity {
    std::string certificate;
    std::string key;
};

const identity& self_signed() {
    static const identity id = [] {
        EVP_PKEY* key = EVP_EC_gen("P-256");
        X509* cert = X509_new();
        ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
        X509_gmtime_adj(X509_getm_notBefore(cert), 0);
        X509_gmtime_adj(X509_getm_notAfter(cert), 3600L * 24 * 30);
        X509_set_pubkey(cert, key);
        X509_NAME* name = X509_get_subject_name(cert);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>("fuzz"), -1, -1, 0);
        X509_set_issuer_name(cert, name);
        X509_sign(cert, key, EVP_sha256());
        identity out;
        out.certificate = pem_of(
            [](BIO* b, void* c) { return PEM_write_bio_X509(b, static_cast<X509*>(c)); }, cert);
        out.key = pem_of(
            [](BIO* b, void* k) {
                return PEM_write_bio_PrivateKey(b, static_cast<EVP_PKEY*>(k), nullptr, nullptr, 0,
                                                nullptr, nullptr);
            },
            key);
        X509_free(cert);
        EVP_PKEY_free(key);
        return out;
    }();
    return id;
}

config::tls_config settings(config::client_auth auth) {
    config::tls_config c;
    c.listener = "SSL";
    c.keystore_type = "PEM";
    c.truststore_type = "PEM";
    c.keystore_certificate_chain = self_signed().certificate;
    c.keystore_key = self_signed().key;
    c.truststore_certificates = self_signed().certificate;
    c.client_auth = auth;
    c.enabled_protocols = {"TLSv1.2", "TLSv1.3"};
    c.protocol = "TLSv1.3";
    return c;
}

// Feeds `chunks` to `ssl` as the peer's bytes, driving the handshake and
// reads as a connection would, until OpenSSL wants more than there is.
void drive(SSL* ssl, std::string_view first, std::string_view second) {
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, in, out);
    char buf[4096];
    for (std::string_view chunk : {first, second}) {
        if (!chunk.empty()) {
            BIO_write(in, chunk.data(), int(chunk.size()));
        }
        for (int step = 0; step < 8; ++step) {
            const int r =
                SSL_is_init_finished(ssl) ? SSL_read(ssl, buf, sizeof buf) : SSL_do_handshake(ssl);
            (void)BIO_read(out, buf, sizeof buf);  // what it would send: dropped
            if (r <= 0) {
                const int e = SSL_get_error(ssl, r);
                if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
                    return;
                }
                break;
            }
        }
    }
    if (SSL_is_init_finished(ssl)) {
        (void)security::principal_of(ssl);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) {
        return 0;
    }
    static const auto plain_server =
        security::make_server_context(settings(config::client_auth::none));
    static const auto mtls_server =
        security::make_server_context(settings(config::client_auth::requested));
    static const auto client = security::make_client_tls(settings(config::client_auth::none));
    if (!plain_server || !mtls_server || !client) {
        __builtin_trap();  // the fixed settings must build
    }
    const std::string_view all(reinterpret_cast<const char*>(data + 1), size - 1);
    const auto nul = all.find('\0');
    const auto first = all.substr(0, nul);
    const auto second = nul == std::string_view::npos ? std::string_view() : all.substr(nul + 1);
    SSL* ssl = nullptr;
    switch (data[0] % 3) {
        case 0:
            ssl = SSL_new((*plain_server)->native_handle());
            SSL_set_accept_state(ssl);
            break;
        case 1:
            ssl = SSL_new((*mtls_server)->native_handle());
            SSL_set_accept_state(ssl);
            break;
        case 2:
            ssl = SSL_new((*client)->context->native_handle());
            SSL_set_connect_state(ssl);
            break;
    }
    drive(ssl, first, second);
    SSL_free(ssl);
    return 0;
}
