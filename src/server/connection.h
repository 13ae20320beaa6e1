#pragma once
// One client connection (docs/architecture.md, "Requests"). Owned by one reactor thread: every
// member is touched only from its socket's executor, so nothing here locks.
//
// The read loop reads frames (4-byte big-endian size, then header and body),
// and starts a handler coroutine per request; the write loop sends responses
// strictly in request order, whatever order the handlers finish in (Kafka
// clients pipeline and rely on this). On client listeners a handler runs
// only once the requests before it are answered, as Kafka processes them,
// except that Produce requests overlap other Produce requests. A frame that is too large, negative,
// or fails to decode closes this connection with one log line; nothing else is affected.
#include <array>
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <string>

#include "security/tls_stream.h"
#include "server/handler.h"
#include "server/produce_sequencer.h"
#include "server/request_context.h"
#include "server/sasl_session.h"

namespace samsa::server {

class connection : public std::enable_shared_from_this<connection> {
  public:
    // `counted_address`: the client address the connection quotas count this
    // connection under (released when it is destroyed); "" when not counted.
    // `tls`: the listener's TLS context (an SSL listener); the connection then
    // completes a TLS handshake before it reads a request.
    // `sasl`: the listener's SASL settings (SASL_PLAINTEXT, SASL_SSL): the
    // connection must authenticate before anything but ApiVersions and SASL.
    connection(asio::ip::tcp::socket socket, broker_context& broker, std::string listener_name,
               std::string counted_address = {}, std::shared_ptr<asio::ssl::context> tls = nullptr,
               std::shared_ptr<const security::sasl::sasl_listener_config> sasl = nullptr);
    ~connection();

    // Spawns the read and write loops on the socket's executor.
    void start();
    // Closes the socket; both loops end. Idempotent.
    void close(std::string_view reason);

  private:
    struct response_slot {
        request_header header;
        bool ready = false;
        handler_result result;
        bool raw = false;  // a SaslHandshake v0 token: a size and the bytes, no header
        // For the request metrics (Kafka's RequestChannel phases).
        std::chrono::steady_clock::time_point read_at, started_at, answered_at;
    };
    // Counts a request done (sent, dropped or closed on) in the metrics.
    void record_request_metrics(const response_slot& slot,
                                std::chrono::steady_clock::time_point send_started) const;
    // log.slow.request.ms: one line for a request that took longer.
    void log_if_slow(const response_slot& slot, std::chrono::steady_clock::time_point started,
                     std::chrono::steady_clock::time_point answered,
                     std::chrono::steady_clock::time_point send_started,
                     std::chrono::steady_clock::time_point now) const;
    // After a SaslHandshake v0 the client sends the SASL tokens as bare
    // frames; answers one.
    void answer_raw_sasl_token(bytes_view token);
    // The authorizer's principal for this connection's requests.
    std::string request_principal() const;
    // Why this SASL connection may not serve a request of `api_key` now
    // (expired, or not yet authenticated); empty when it may
    // (server/connection_sasl.cc).
    std::string sasl_refusal(int16_t api_key);

    // The TLS handshake (bounded in time), then the loops.
    asio::awaitable<void> handshake_then_run();
    void start_loops();
    // Reads exactly `b` / writes all of `bufs`, through TLS when the listener has it.
    asio::awaitable<std::error_code> read_exact(asio::mutable_buffer b);
    asio::awaitable<std::error_code> write_all(const std::array<asio::const_buffer, 2>& bufs);
    asio::awaitable<void> read_loop();
    asio::awaitable<void> write_loop();
    // connections.max.idle.ms: closes the connection once it has neither read
    // nor written for that long with no request in progress.
    asio::awaitable<void> idle_loop(std::chrono::milliseconds max_idle);
    // queued.max.requests: waits while the broker has that many requests in
    // progress (client listeners only).
    asio::awaitable<void> wait_for_request_room();
    // Client quotas (KIP-219): waits until the last throttle a response
    // carried has passed; and a plain wait of `ms` (none when 0).
    asio::awaitable<void> wait_out_throttle();
    asio::awaitable<void> delay(int32_t ms);
    void release_quota();
    // Whether `slot`'s request must wait for earlier requests to be answered.
    bool must_wait_for_earlier(const response_slot& slot) const;
    asio::awaitable<void> run_handler(std::shared_ptr<response_slot> slot, request_context ctx,
                                      const api_handler* handler);
    // Parses the request header; returns false (and closes) on a bad header.
    bool parse_header(bytes_view frame, request_header& header, size_t& body_offset);
    asio::awaitable<bool> send_response(response_slot& slot);
    asio::awaitable<bool> send_file_range(const protocol::file_range& f);

    asio::ip::tcp::socket _socket;
    // TLS over `_socket` (SSL listeners): reads and writes go through it, and
    // fetched file ranges are read and encrypted rather than sendfile'd.
    std::shared_ptr<asio::ssl::context> _tls_context;
    std::unique_ptr<security::tls_stream> _tls;
    std::string _principal;               // the client certificate's subject, or ANONYMOUS
    std::unique_ptr<sasl_session> _sasl;  // SASL listeners only
    produce_sequencer _produce_order;
    broker_context& _broker;
    std::string _listener_name;
    bool _controller_listener = false;
    std::string _peer;
    std::string _peer_host;  // the client's address, as ACL hosts name it
    std::deque<std::shared_ptr<response_slot>> _queue;
    asio::steady_timer _response_ready;  // wakes the write loop
    asio::steady_timer _queue_drained;   // wakes the read loop when it waits for room
    asio::steady_timer _handler_done;    // wakes requests waiting for earlier ones
    std::string _counted_address;        // released at close
    asio::steady_timer _idle;            // connections.max.idle.ms
    // Requests read but not started (waiting for earlier ones). The reader
    // reads no further while there is one, as Kafka mutes a connection with
    // a request in progress: a client cannot pile requests up behind a long
    // poll (and so fill queued.max.requests for everyone).
    int _waiting_to_start = 0;
    asio::steady_timer _request_started;  // wakes the reader
    std::chrono::steady_clock::time_point _last_activity = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point _throttled_until{};
    bool _closed = false;
};

}  // namespace samsa::server
