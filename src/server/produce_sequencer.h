#pragma once
// produce_sequencer: the order in which one connection's Produce requests
// append. Produce requests on a connection overlap (server/connection.cc) so
// that a producer's pipelined batches keep flowing while earlier ones wait
// for replication, but each appends only after every earlier one has
// appended, as Kafka's one-request-at-a-time handling guarantees: without it
// a request for partition 1 alone could reach that partition's shard before
// an earlier request that visits partition 0's shard first, and a producer
// without idempotence would see its batches stored out of order.
//
// Tickets are taken in read order. A request waits for its turn before it
// appends and is done once it appended (or will not append at all); done()
// may come in any order. On the connection's executor only.
#include <asio/awaitable.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdint>
#include <set>

namespace samsa::server {

class produce_sequencer {
  public:
    explicit produce_sequencer(const asio::any_io_executor& ex) : _wake(ex) {
        _wake.expires_at(asio::steady_timer::time_point::max());
    }

    uint64_t take() { return _issued++; }

    // Returns once every earlier ticket is done (or the connection closed).
    asio::awaitable<void> wait_turn(uint64_t ticket) {
        while (!_closed && _next < ticket) {
            std::error_code ec;
            co_await _wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    // Idempotent.
    void done(uint64_t ticket) {
        if (ticket < _next) {
            return;
        }
        _finished.insert(ticket);
        bool advanced = false;
        while (!_finished.empty() && *_finished.begin() == _next) {
            _finished.erase(_finished.begin());
            ++_next;
            advanced = true;
        }
        if (advanced) {
            _wake.cancel();  // wakes every waiter; each looks again
        }
    }

    void close() {
        _closed = true;
        _wake.cancel();
    }

  private:
    asio::steady_timer _wake;  // never re-armed: several requests wait on it at once
    uint64_t _issued = 0;
    uint64_t _next = 0;  // every ticket below it is done
    std::set<uint64_t> _finished;
    bool _closed = false;
};

}  // namespace samsa::server
