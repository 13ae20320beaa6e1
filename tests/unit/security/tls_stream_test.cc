// The server's TLS stream (security/tls_stream.h) against asio's TLS client
// over loopback: a handshake, megabytes each way with a read and a write
// under way at once, a clean close, and a plaintext client refused with
// OpenSSL's reason.
#include "security/tls_stream.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/read.hpp>
#include <asio/redirect_error.hpp>
#include <asio/ssl/stream.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <numeric>

#include "security/tls_context.h"

namespace samsa::security {
namespace {

std::string pem_of(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    return std::string(data, size_t(n));
}

// A self-signed P-256 certificate for 127.0.0.1 and its key, as PEM.
std::pair<std::string, std::string> self_signed() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("tls-stream-test"), -1, -1,
                               0);
    X509_set_issuer_name(cert, name);
    X509_sign(cert, key, EVP_sha256());
    BIO* c = BIO_new(BIO_s_mem());
    BIO* k = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(c, cert);
    PEM_write_bio_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr);
    auto out = std::make_pair(pem_of(c), pem_of(k));
    BIO_free(c);
    BIO_free(k);
    X509_free(cert);
    EVP_PKEY_free(key);
    return out;
}

std::shared_ptr<asio::ssl::context> server_context() {
    static const auto [chain, key] = self_signed();
    config::tls_config c;
    c.listener = "SSL";
    c.keystore_type = "PEM";
    c.truststore_type = "PEM";
    c.enabled_protocols = {"TLSv1.2", "TLSv1.3"};
    c.protocol = "TLSv1.3";
    c.keystore_certificate_chain = chain;
    c.keystore_key = key;
    auto ctx = make_server_context(c);
    EXPECT_TRUE(ctx) << (ctx ? "" : ctx.err().message);
    return ctx ? *ctx : nullptr;
}

// A connected pair of sockets, and asio's TLS client (no verification) over
// the client end.
struct loopback {
    asio::io_context io;
    asio::ip::tcp::socket server{io};
    asio::ip::tcp::socket client{io};
    asio::ssl::context client_ctx{asio::ssl::context::tls_client};
    asio::ssl::stream<asio::ip::tcp::socket&> tls_client{client, client_ctx};
    loopback() {
        client_ctx.set_verify_mode(asio::ssl::verify_none);
        asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
        client.connect(acceptor.local_endpoint());
        acceptor.accept(server);
    }
};

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    std::iota(v.begin(), v.end(), seed);
    return v;
}

TEST(tls_stream, carries_megabytes_both_ways_at_once_and_sees_a_clean_close) {
    loopback l;
    tls_stream server(l.server, server_context());
    auto& client = l.tls_client;

    const auto up = pattern(3 * 1024 * 1024 + 17, 1);   // client to server
    const auto down = pattern(2 * 1024 * 1024 + 5, 7);  // server to client
    std::vector<uint8_t> got_up(up.size()), got_down(down.size());
    std::error_code handshake_ec, read_ec, write_ec, eof_ec;
    bool client_done = false;
    asio::steady_timer read_done(l.io, asio::steady_timer::time_point::max());

    auto server_side = [&]() -> asio::awaitable<void> {
        handshake_ec = co_await server.handshake();
        // The writer and the reader run at once, as the connection's loops do.
        asio::co_spawn(
            l.io,
            [&]() -> asio::awaitable<void> {
                const std::array<asio::const_buffer, 2> bufs{
                    asio::buffer(down.data(), 5), asio::buffer(down.data() + 5, down.size() - 5)};
                write_ec = co_await server.write_all(bufs);
            },
            asio::detached);
        read_ec = co_await server.read_exact(asio::buffer(got_up));
        uint8_t one;
        eof_ec = co_await server.read_exact(asio::buffer(&one, 1));
        l.server.close();
    };
    auto client_side = [&]() -> asio::awaitable<void> {
        co_await client.async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
        asio::co_spawn(
            l.io,
            [&]() -> asio::awaitable<void> {
                co_await asio::async_read(client, asio::buffer(got_down), asio::use_awaitable);
                client_done = true;
                read_done.cancel();
            },
            [](std::exception_ptr) {});
        for (size_t at = 0; at < up.size(); at += 100'000) {
            const size_t n = std::min<size_t>(100'000, up.size() - at);
            co_await asio::async_write(client, asio::buffer(up.data() + at, n),
                                       asio::use_awaitable);
        }
        std::error_code ec;
        if (!client_done) {
            co_await read_done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        // Sends close_notify (once nothing else is under way on the stream),
        // then waits for the server's, which never comes: the server closes
        // the socket instead.
        co_await client.async_shutdown(asio::use_awaitable);
    };
    asio::co_spawn(l.io, server_side(), asio::detached);
    asio::co_spawn(l.io, client_side(), [](std::exception_ptr) {});
    l.io.run_for(std::chrono::seconds(60));

    EXPECT_FALSE(handshake_ec) << handshake_ec.message();
    EXPECT_FALSE(read_ec) << read_ec.message();
    EXPECT_FALSE(write_ec) << write_ec.message();
    EXPECT_TRUE(got_up == up);
    EXPECT_TRUE(got_down == down);
    EXPECT_TRUE(client_done);
    EXPECT_EQ(eof_ec, asio::error::eof) << eof_ec.message();
}

TEST(tls_stream, refuses_a_plaintext_client_with_openssls_reason) {
    loopback l;
    tls_stream server(l.server, server_context());
    std::error_code ec;
    asio::co_spawn(
        l.io, [&]() -> asio::awaitable<void> { ec = co_await server.handshake(); }, asio::detached);
    // A Kafka ApiVersions request where a ClientHello should be.
    const uint8_t request[] = {0, 0, 0, 10, 0, 18, 0, 3, 0, 0, 0, 1, 0, 0};
    asio::write(l.client, asio::buffer(request));
    l.io.run_for(std::chrono::seconds(30));
    ASSERT_TRUE(ec);
    EXPECT_EQ(ec.category(), asio::error::get_ssl_category()) << ec.message();
    EXPECT_NE(ec.message().find("wrong version number"), std::string::npos) << ec.message();
}

TEST(tls_stream, a_peer_gone_mid_frame_is_a_truncated_stream) {
    loopback l;
    tls_stream server(l.server, server_context());
    auto& client = l.tls_client;
    std::error_code handshake_ec, read_ec;
    asio::co_spawn(
        l.io,
        [&]() -> asio::awaitable<void> {
            handshake_ec = co_await server.handshake();
            std::vector<uint8_t> frame(1000);
            read_ec = co_await server.read_exact(asio::buffer(frame));
        },
        asio::detached);
    asio::co_spawn(
        l.io,
        [&]() -> asio::awaitable<void> {
            co_await client.async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
            const auto half = pattern(500, 3);
            co_await asio::async_write(client, asio::buffer(half), asio::use_awaitable);
            l.client.close();  // no close_notify
        },
        [](std::exception_ptr) {});
    l.io.run_for(std::chrono::seconds(30));
    EXPECT_FALSE(handshake_ec) << handshake_ec.message();
    EXPECT_TRUE(read_ec);
    EXPECT_NE(read_ec, asio::error::eof);
}

}  // namespace
}  // namespace samsa::security
