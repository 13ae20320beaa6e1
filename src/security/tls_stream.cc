#include "security/tls_stream.h"

#include <openssl/bio.h>
#include <openssl/err.h>

#include <asio/redirect_error.hpp>
#include <asio/ssl/error.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <climits>

namespace samsa::security {

namespace {

// How much ciphertext one read(2) may bring in (OpenSSL's read-ahead buffer).
constexpr size_t read_ahead_bytes = 64 * 1024;
// An output buffer larger than this (an unusually large response; a fetch's
// file ranges go out 256 KiB at a time) is freed once sent, so that a
// connection does not keep it for as long as it lives.
constexpr size_t kept_output_bytes = 512 * 1024;

// A write-only BIO whose bytes are appended to the tls_stream's output buffer.
int output_write(BIO* bio, const char* data, int len) {
    auto* stream = static_cast<tls_stream*>(BIO_get_data(bio));
    auto& out = stream->output();
    out.insert(out.end(), data, data + len);
    return len;
}

long output_ctrl(BIO*, int cmd, long, void*) {
    // OpenSSL flushes after each handshake flight: the bytes are already in
    // the buffer, and flush() sends them.
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

int output_create(BIO* bio) {
    BIO_set_init(bio, 1);
    return 1;
}

BIO_METHOD* output_method() {
    static BIO_METHOD* method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tls_output");
        BIO_meth_set_write(m, output_write);
        BIO_meth_set_ctrl(m, output_ctrl);
        BIO_meth_set_create(m, output_create);
        return m;
    }();
    return method;
}

// The first queued OpenSSL error as asio names it (its reason string, as
// asio's ssl::stream reports a failed handshake); clears the queue.
std::error_code last_ssl_error() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) {
        return asio::error::connection_reset;
    }
    return {int(e), asio::error::get_ssl_category()};
}

}  // namespace

tls_stream::tls_stream(asio::ip::tcp::socket& socket, std::shared_ptr<asio::ssl::context> context)
    : _socket(socket), _context(std::move(context)) {
    _ssl = SSL_new(_context->native_handle());
    BIO* in = BIO_new_socket(int(_socket.native_handle()), BIO_NOCLOSE);
    BIO* out = BIO_new(output_method());
    BIO_set_data(out, this);
    SSL_set_bio(_ssl, in, out);
    SSL_set_accept_state(_ssl);
    SSL_set_options(_ssl, SSL_OP_NO_RENEGOTIATION);
    SSL_set_read_ahead(_ssl, 1);
    // An idle connection holds no record buffers (OpenSSL frees them when
    // empty and allocates them again on the next record).
    SSL_set_mode(_ssl, SSL_MODE_RELEASE_BUFFERS);
    SSL_set_default_read_buffer_len(_ssl, read_ahead_bytes);
    std::error_code ec;
    _socket.non_blocking(true, ec);
}

tls_stream::~tls_stream() {
    SSL_free(_ssl);
}

std::error_code tls_stream::error_of(int ret) {
    switch (SSL_get_error(_ssl, ret)) {
        case SSL_ERROR_WANT_READ:
            return {};
        case SSL_ERROR_ZERO_RETURN:  // close_notify
            return asio::error::eof;
        case SSL_ERROR_SYSCALL:
            // EOF without close_notify, or a socket error.
            if (ERR_peek_error() == 0) {
                const int err = errno;
                return err == 0 ? std::error_code(asio::ssl::error::stream_truncated)
                                : std::error_code(err, std::system_category());
            }
            return last_ssl_error();
        default:
            return last_ssl_error();
    }
}

asio::awaitable<std::error_code> tls_stream::flush() {
    std::error_code ec;
    while (!_out.empty() && !ec) {
        // What OpenSSL appends while this write is under way (from SSL_read)
        // goes into the other buffer and out next time round.
        _sending.swap(_out);
        co_await asio::async_write(_socket, asio::buffer(_sending),
                                   asio::redirect_error(asio::use_awaitable, ec));
        _sending.clear();
        if (_sending.capacity() > kept_output_bytes) {
            std::vector<uint8_t>().swap(_sending);
        }
    }
    co_return ec;
}

asio::awaitable<std::error_code> tls_stream::handshake() {
    while (true) {
        ERR_clear_error();
        const int ret = SSL_do_handshake(_ssl);
        const std::error_code failed = ret == 1 ? std::error_code() : error_of(ret);
        // Each flight, and an alert on failure, goes out before anything else.
        std::error_code ec = co_await flush();
        if (ret == 1 || failed) {
            co_return failed ? failed : ec;
        }
        if (ec) {
            co_return ec;
        }
        co_await _socket.async_wait(asio::ip::tcp::socket::wait_read,
                                    asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            co_return ec;
        }
    }
}

asio::awaitable<std::error_code> tls_stream::read_exact(asio::mutable_buffer b) {
    auto* at = static_cast<uint8_t*>(b.data());
    size_t left = b.size();
    // SSL_get_error needs an empty error queue; a successful call leaves it
    // empty and a failure clears it, so once per call suffices (per record it
    // was 2 % of the broker's time producing over TLS).
    ERR_clear_error();
    while (left > 0) {
        size_t got = 0;
        const int ret = SSL_read_ex(_ssl, at, left, &got);
        if (ret == 1) {
            at += got;
            left -= got;
            continue;
        }
        std::error_code ec = error_of(ret);
        if (ec) {
            if (ec == asio::error::eof && left < b.size()) {
                ec = asio::ssl::error::stream_truncated;
            }
            co_return ec;
        }
        co_await _socket.async_wait(asio::ip::tcp::socket::wait_read,
                                    asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            co_return ec;
        }
        ERR_clear_error();  // others ran on this thread meanwhile
    }
    co_return std::error_code();
}

asio::awaitable<std::error_code> tls_stream::write_all(std::span<const asio::const_buffer> bufs) {
    ERR_clear_error();
    for (const auto& b : bufs) {
        const auto* at = static_cast<const uint8_t*>(b.data());
        size_t left = b.size();
        while (left > 0) {
            size_t wrote = 0;
            // Into the output buffer: it takes everything, so a failure here
            // is a broken session, not a full socket.
            if (SSL_write_ex(_ssl, at, left, &wrote) != 1) {
                co_return last_ssl_error();
            }
            at += wrote;
            left -= wrote;
        }
    }
    co_return co_await flush();
}

}  // namespace samsa::security
