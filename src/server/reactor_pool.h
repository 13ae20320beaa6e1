#pragma once
// The reactor threads (docs/architecture.md, "Threads"): one asio::io_context per thread, each
// running coroutines. Each listener spreads its connections round-robin over
// its share of the reactors (num.network.threads); each partition is owned by
// one reactor (its shard).
//
// Thread-safety: next() is called from the acceptor's thread only; run() and
// stop() from the thread that owns the pool.
#include <asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace samsa::server {

class reactor_pool {
  public:
    // threads == 0: one per core.
    explicit reactor_pool(size_t threads);
    ~reactor_pool();
    reactor_pool(const reactor_pool&) = delete;
    reactor_pool& operator=(const reactor_pool&) = delete;

    size_t size() const { return _contexts.size(); }
    asio::io_context& at(size_t i) { return *_contexts[i]; }
    // The reactors one listener's connections go to: `count` of them from
    // `first`, wrapping around; `cursor` is the listener's round-robin place.
    struct share {
        size_t first = 0;
        size_t count = 0;
        size_t cursor = 0;
    };
    // Kafka's num.network.threads for the `ordinal`-th listener (0: every
    // reactor): listeners with fewer threads than reactors start at different
    // reactors, so their connections do not all crowd the first ones.
    share share_for(size_t ordinal, size_t network_threads) const;
    // Round-robin choice within a listener's share for a new connection.
    asio::io_context& next(share& s);
    // The reactor whose thread is calling, or nullptr off the reactors.
    static asio::io_context* current();

    // Starts one thread per context; returns at once.
    void start();

    // What /metrics reports of each reactor (any thread, between start() and
    // stop()): its thread's CPU time, and its loop's lateness as a probe
    // timer every k_probe_interval sees it. A late timer means something held
    // the thread (a long callback, a blocking call); past k_stall it counts
    // as a stall.
    struct figures {
        double cpu_seconds = 0;
        uint64_t stalls = 0;
        int64_t lag_us = 0;  // the last probe's lateness
    };
    static constexpr std::chrono::milliseconds k_probe_interval{100};
    static constexpr std::chrono::milliseconds k_stall{100};
    std::vector<figures> observe() const;
    // Stops every context and joins the threads.
    void stop();

  private:
    struct probe;
    std::vector<std::unique_ptr<asio::io_context>> _contexts;
    std::vector<std::shared_ptr<probe>> _probes;
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> _work;
    std::vector<std::thread> _threads;
};

}  // namespace samsa::server
