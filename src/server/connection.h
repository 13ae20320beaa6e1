#pragma once
// One client connection (DESIGN.md §3). Owned by one reactor thread: every
// member is touched only from its socket's executor, so nothing here locks.
//
// The read loop reads frames (4-byte big-endian size, then header and body),
// and starts a handler coroutine per request; the write loop sends responses
// strictly in request order, whatever order the handlers finish in (Kafka
// clients pipeline and rely on this). On client listeners a handler runs
// only once the requests before it are answered, as Kafka processes them,
// except that Produce requests overlap other Produce requests. A frame that is too large, negative,
// or fails to decode closes this connection with one log line; nothing else is affected.
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <deque>
#include <memory>
#include <string>

#include "server/handler.h"
#include "server/request_context.h"

namespace samsa::server {

class connection : public std::enable_shared_from_this<connection> {
  public:
    connection(asio::ip::tcp::socket socket, broker_context& broker, std::string listener_name);

    // Spawns the read and write loops on the socket's executor.
    void start();
    // Closes the socket; both loops end. Idempotent.
    void close(std::string_view reason);

  private:
    struct response_slot {
        request_header header;
        bool ready = false;
        handler_result result;
    };

    asio::awaitable<void> read_loop();
    asio::awaitable<void> write_loop();
    // Whether `slot`'s request must wait for earlier requests to be answered.
    bool must_wait_for_earlier(const response_slot& slot) const;
    asio::awaitable<void> run_handler(std::shared_ptr<response_slot> slot, request_context ctx,
                                      const api_handler* handler);
    // Parses the request header; returns false (and closes) on a bad header.
    bool parse_header(bytes_view frame, request_header& header, size_t& body_offset);
    asio::awaitable<bool> send_response(response_slot& slot);
    asio::awaitable<bool> send_file_range(const protocol::file_range& f);

    asio::ip::tcp::socket _socket;
    broker_context& _broker;
    std::string _listener_name;
    bool _controller_listener = false;
    std::string _peer;
    std::deque<std::shared_ptr<response_slot>> _queue;
    asio::steady_timer _response_ready;  // wakes the write loop
    asio::steady_timer _queue_drained;   // wakes the read loop when it waits for room
    asio::steady_timer _handler_done;    // wakes requests waiting for earlier ones
    bool _closed = false;
};

}  // namespace samsa::server
