#pragma once
// producer_id_manager: hands out producer ids for InitProducerId (Kafka's
// RPCProducerIdManager). Ids come in blocks of 1000 that the controller
// allocates by committing a ProducerIdsRecord to the metadata log, so an id is
// never handed out twice, not even across restarts: a restart simply starts on
// a fresh block and the rest of the old one is never used.
//
// The next block is fetched in the background once 90% of the current one is
// used, so that InitProducerId rarely waits for the controller. A caller that
// finds no id left fetches a block itself and awaits it; blocks fetched
// concurrently are queued, none is dropped.
//
// Threading: any reactor may call next_producer_id() at any time; a mutex
// guards the blocks (held only to take an id, never across an await).
// Lifetime: must outlive the reactors and the block source (a background
// fetch still in flight holds `this`).
#include <asio/awaitable.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

#include "common/result.h"
#include "metadata/controller.h"

namespace samsa::coordinator::txn {

// Fetches the next block: the controller's allocate_producer_ids().
using producer_id_block_source =
    std::function<asio::awaitable<result<metadata::producer_id_block>>()>;

class producer_id_manager {
  public:
    explicit producer_id_manager(producer_id_block_source source);
    producer_id_manager(const producer_id_manager&) = delete;
    producer_id_manager& operator=(const producer_id_manager&) = delete;

    // The next unused producer id. Errors are the controller's (the metadata
    // log could not record a new block); the caller answers them to the client,
    // which retries.
    asio::awaitable<result<int64_t>> next_producer_id();

    // Ids left in the blocks at hand (tests and metrics).
    int64_t remaining() const;
    // Blocks fetched so far (tests).
    int64_t blocks_fetched() const;

  private:
    struct range {
        int64_t first;
        int64_t next;
        int64_t end;  // exclusive
    };
    // Under the mutex: an id, or -1 when none is left. Sets `prefetch` when the
    // caller should start the background fetch.
    int64_t take_locked(bool& prefetch);
    void add_block_locked(const metadata::producer_id_block& b);
    asio::awaitable<void> prefetch();

    producer_id_block_source _source;
    mutable std::mutex _mutex;
    std::deque<range> _ranges;
    bool _prefetching = false;
    int64_t _blocks_fetched = 0;
};

}  // namespace samsa::coordinator::txn
