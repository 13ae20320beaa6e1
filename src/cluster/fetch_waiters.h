#pragma once
// Long polling for Fetch across shards (Kafka's DelayedFetch, for a
// thread-per-core broker). A fetch handler runs on its connection's shard;
// the partitions it reads live on other shards, where appends happen. So:
//
//  * before its first read, the handler takes a ticket on its shard: the
//    shard's notification sequence, and "interest" that makes appends on any
//    shard notify this one;
//  * after an append, the partition's shard calls notify(tp): every shard
//    with interest gets a posted notification that bumps its sequence and
//    checks the delayed fetches watching tp in its purgatory;
//  * if the first read found too little, wait() parks a delayed operation in
//    the shard's purgatory until tp is notified or max_wait_ms passes. A
//    notification that arrived between the ticket and the wait (the read was
//    in flight) has already bumped the sequence, so the wait returns at once:
//    no wake-up is lost.
//
// Threading: begin/end/wait on the handler's shard; notify from any shard.
// Lifetime: destroyed after the reactors stopped and before their contexts.
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "cluster/purgatory/purgatory.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "storage/topic_partition.h"

namespace samsa::cluster {

class fetch_waiters {
  public:
    explicit fetch_waiters(std::vector<asio::io_context*> shards);
    ~fetch_waiters();
    fetch_waiters(const fetch_waiters&) = delete;
    fetch_waiters& operator=(const fetch_waiters&) = delete;

    struct ticket {
        size_t shard = 0;
        uint64_t seq = 0;
    };

    // On the calling shard (`caller` is its io_context).
    ticket begin(asio::io_context& caller);
    void end(const ticket& t);
    // Resumes once one of `partitions` was notified after `t` was taken (or
    // refreshed), or after `timeout_ms`; refreshes `t` to the current sequence.
    asio::awaitable<void> wait(ticket& t, std::vector<storage::topic_partition> partitions,
                               int64_t timeout_ms);

    // Any shard: new data (or a moved high watermark / log start) on `tp`.
    void notify(const storage::topic_partition& tp);

  private:
    using fetch_purgatory = purgatory<storage::topic_partition, storage::topic_partition_hash>;
    struct shard_state {
        asio::io_context* ctx = nullptr;
        std::unique_ptr<purgatory_driver> driver;
        std::unique_ptr<fetch_purgatory> fetches;
        uint64_t seq = 0;              // shard thread only
        std::atomic<int> interest{0};  // read by notifying shards
    };
    std::vector<std::unique_ptr<shard_state>> _shards;
};

}  // namespace samsa::cluster
