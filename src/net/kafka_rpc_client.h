#pragma once
// kafka_rpc_client: one outbound Kafka-protocol connection from this node to
// another node's controller listener (the Raft voters talking to each other;
// a broker forwarding admin requests to the active controller; broker
// registration and heartbeats).
//
// call() queues a request (any thread); requests are written in order and
// pipelined, and each answer is matched to its request by correlation id (Kafka
// answers in order on a connection). The connection is opened on the first
// call and again after it breaks; a break fails every request in flight with
// NETWORK_EXCEPTION, and the caller decides whether to retry (Raft retries on
// its own timers). A request unanswered after `request_timeout` breaks the
// connection, since an answer can no longer be matched in order after it.
//
// With `security` the connection is TLS (the peer's listener is SSL or
// SASL_SSL) and/or authenticated with SASL (SASL_PLAINTEXT, SASL_SSL): the
// TLS handshake and the SASL exchange follow the connect, before any queued
// request is sent; a peer that fails verification, or refuses the login,
// fails the requests as a broken connection would. (The session is not
// re-authenticated: a listener with connections.max.reauth.ms closes it when
// it ends, and the next call opens a new one.)
//
// All of its state lives on its executor (a strand of one thread); the
// callback runs there too.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/stream.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "protocol/message_codec.h"
#include "security/client_security.h"

namespace samsa::net {

// An answer: the frame as read (not copied, not zero-filled first: replica
// fetches carry megabytes) and its body after the response header.
struct rpc_answer {
    std::shared_ptr<const uint8_t[]> frame;
    bytes_view body;
};

class kafka_rpc_client : public std::enable_shared_from_this<kafka_rpc_client> {
  public:
    using callback = std::function<void(result<rpc_answer>)>;

    static std::shared_ptr<kafka_rpc_client> create(
        asio::any_io_executor ex, std::string host, uint16_t port, std::string client_id,
        std::chrono::milliseconds request_timeout,
        std::shared_ptr<const security::client_security> security = nullptr);

    void call(int16_t api_key, int16_t api_version, bytes body, callback done);
    // Fails what is queued and closes the connection; later calls reopen it.
    void close();

    const std::string& host() const { return _host; }
    uint16_t port() const { return _port; }

  private:
    kafka_rpc_client(asio::any_io_executor ex, std::string host, uint16_t port,
                     std::string client_id, std::chrono::milliseconds request_timeout,
                     std::shared_ptr<const security::client_security> security);

    struct pending {
        int32_t correlation_id = 0;
        int16_t api_key = 0;
        int16_t api_version = 0;
        bytes frame;  // size prefix, header and body
        callback done;
        std::chrono::steady_clock::time_point sent;
    };

    void enqueue(pending p);
    void fail_all(const std::string& why);
    asio::awaitable<void> run(uint64_t generation);
    asio::awaitable<void> read_loop(uint64_t generation);
    asio::awaitable<std::error_code> handshake();
    asio::awaitable<status> authenticate();
    // One request written and its answer read, before the read loop runs
    // (the SASL exchange): the answer's body.
    asio::awaitable<result<bytes>> exchange(int16_t api_key, int16_t api_version, bytes body);
    // exchange() of a typed request, its answer decoded in the same version.
    template <typename Response, typename Request>
    asio::awaitable<result<Response>> typed_exchange(const Request& request, int16_t version) {
        auto body = co_await exchange(Request::api_key, version,
                                      protocol::encode_message(request, version));
        if (!body) {
            co_return body.err();
        }
        auto decoded = protocol::decode_message<Response>(*body, version);
        if (!decoded) {
            co_return error(
                error_code::network_exception,
                "the answer to api " + std::to_string(Request::api_key) + " did not decode");
        }
        co_return std::move(*decoded);
    }
    bytes frame_of(int16_t api_key, int16_t api_version, int32_t correlation_id,
                   bytes_view body) const;
    // `op(stream)` on the TLS stream or on the plain socket.
    template <typename Op>
    auto on_stream(Op op) {
        return _tls_stream ? op(*_tls_stream) : op(_socket);
    }

    asio::any_io_executor _ex;
    std::string _host;
    uint16_t _port;
    std::string _client_id;
    std::chrono::milliseconds _request_timeout;
    std::shared_ptr<const security::client_security> _security;
    asio::ip::tcp::socket _socket;                                        // plaintext
    std::optional<asio::ssl::stream<asio::ip::tcp::socket>> _tls_stream;  // with _security
    asio::steady_timer _wake;  // new requests for the writer
    std::deque<pending> _unsent;
    std::deque<pending> _in_flight;
    int32_t _next_correlation = 1;
    bool _running = false;
    uint64_t _generation = 0;  // one per connection attempt; stale loops stop
    bool _handshake_failure_logged = false;
    bool _authentication_failure_logged = false;
};

}  // namespace samsa::net
