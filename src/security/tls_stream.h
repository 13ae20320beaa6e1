#pragma once
// tls_stream: the server side of a TLS connection, OpenSSL working on the
// socket itself (docs/tls.md, "Throughput").
//
// asio's ssl::stream passes every byte through a memory BIO pair of one TLS
// record (17 KiB): each record costs a socket read or write and an
// asynchronous operation of its own, and a copy each way. Here
//
//   reads   OpenSSL reads the non-blocking socket itself, with read-ahead into
//           a 64 KiB buffer, so one read(2) brings several records and
//           SSL_read decrypts them into the caller's buffer; only when it
//           wants more does the coroutine wait for the socket;
//   writes  SSL_write encrypts into an output buffer of ours (a BIO that
//           appends to it), which goes out in one write: a 1 MiB response is
//           one or a few write(2)s, not sixty-four.
//
// Renegotiation is refused (Kafka does not support it either), so SSL_write
// never needs to read and SSL_read writes only rarely (a TLS 1.3 KeyUpdate
// answer, an alert); what SSL_read writes waits in the output buffer and
// goes out with the next write_all(), in order.
//
// Memory: OpenSSL's record buffers are freed while a connection is idle; the
// output buffers keep up to 512 KiB each between writes (a fetch's segment
// bytes are encrypted 256 KiB at a time), and larger ones are freed once sent.
//
// One reader and one writer may run at once (the connection's read and write
// loops), on the connection's reactor only; the socket stays open after
// destruction (the caller owns it).
#include <openssl/ssl.h>

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>
#include <memory>
#include <span>
#include <system_error>
#include <vector>

namespace samsa::security {

class tls_stream {
  public:
    tls_stream(asio::ip::tcp::socket& socket, std::shared_ptr<asio::ssl::context> context);
    ~tls_stream();
    tls_stream(const tls_stream&) = delete;
    tls_stream& operator=(const tls_stream&) = delete;

    SSL* native_handle() const { return _ssl; }

    // The server's handshake; its error names OpenSSL's reason ("wrong
    // version number", "peer did not return a certificate").
    asio::awaitable<std::error_code> handshake();
    // Fills `b` exactly; asio::error::eof on a clean close before the first
    // byte of it.
    asio::awaitable<std::error_code> read_exact(asio::mutable_buffer b);
    // Encrypts and sends every buffer, in order.
    asio::awaitable<std::error_code> write_all(std::span<const asio::const_buffer> bufs);

    // The output BIO's sink (for the BIO callbacks).
    std::vector<uint8_t>& output() { return _out; }

  private:
    // Sends what OpenSSL has written so far.
    asio::awaitable<std::error_code> flush();
    // The error of a failed SSL call that returned `ret`; none when it only
    // wants the socket readable.
    std::error_code error_of(int ret);

    asio::ip::tcp::socket& _socket;
    std::shared_ptr<asio::ssl::context> _context;  // outlives _ssl
    SSL* _ssl = nullptr;
    std::vector<uint8_t> _out;      // ciphertext not yet handed to the socket
    std::vector<uint8_t> _sending;  // what the writer is sending now
};

}  // namespace samsa::security
