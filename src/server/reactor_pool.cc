#include "server/reactor_pool.h"
#include "common/logging/loggers.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <time.h>

#include <algorithm>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>

namespace samsa::server {

namespace {
thread_local asio::io_context* t_current = nullptr;
}

// A timer that re-arms itself on its reactor and measures how late it fires.
struct reactor_pool::probe : std::enable_shared_from_this<probe> {
    explicit probe(asio::io_context& ctx) : timer(ctx) {}

    void arm() {
        due = std::chrono::steady_clock::now() + k_probe_interval;
        timer.expires_at(due);
        timer.async_wait([self = shared_from_this()](const std::error_code& ec) {
            if (ec) {
                return;
            }
            const auto late = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now() - self->due);
            self->lag_us.store(late.count(), std::memory_order_relaxed);
            if (late > k_stall) {
                self->stalls.fetch_add(1, std::memory_order_relaxed);
            }
            self->arm();
        });
    }

    asio::steady_timer timer;
    std::chrono::steady_clock::time_point due;
    std::atomic<int64_t> lag_us{0};
    std::atomic<uint64_t> stalls{0};
};

std::vector<reactor_pool::figures> reactor_pool::observe() const {
    std::vector<figures> out(_threads.size());
    for (size_t i = 0; i < _threads.size() && i < _probes.size(); ++i) {
        clockid_t cid;
        timespec ts{};
        // const_cast: native_handle() is not const, and reading a clock id
        // changes nothing.
        auto& t = const_cast<std::thread&>(_threads[i]);
        if (pthread_getcpuclockid(t.native_handle(), &cid) == 0 && clock_gettime(cid, &ts) == 0) {
            out[i].cpu_seconds = double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
        }
        out[i].stalls = _probes[i]->stalls.load(std::memory_order_relaxed);
        out[i].lag_us = _probes[i]->lag_us.load(std::memory_order_relaxed);
    }
    return out;
}

asio::io_context* reactor_pool::current() {
    return t_current;
}

reactor_pool::reactor_pool(size_t threads) {
    if (threads == 0) {
        threads = std::max(1u, std::thread::hardware_concurrency());
    }
    for (size_t i = 0; i < threads; ++i) {
        // Concurrency hint 1: each context is driven by exactly one thread.
        _contexts.push_back(std::make_unique<asio::io_context>(1));
    }
}

reactor_pool::~reactor_pool() {
    stop();
}

reactor_pool::share reactor_pool::share_for(size_t ordinal, size_t network_threads) const {
    const size_t n = _contexts.size();
    const size_t count = network_threads == 0 ? n : std::min(network_threads, n);
    return share{(ordinal * count) % n, count, 0};
}

asio::io_context& reactor_pool::next(share& s) {
    auto& ctx = *_contexts[(s.first + s.cursor) % _contexts.size()];
    s.cursor = (s.cursor + 1) % std::max<size_t>(s.count, 1);
    return ctx;
}

void reactor_pool::start() {
    for (size_t i = 0; i < _contexts.size(); ++i) {
        _probes.push_back(std::make_shared<probe>(*_contexts[i]));
        asio::post(*_contexts[i], [p = _probes.back()] { p->arm(); });
    }
    for (size_t i = 0; i < _contexts.size(); ++i) {
        _work.push_back(asio::make_work_guard(*_contexts[i]));
        _threads.emplace_back([ctx = _contexts[i].get(), i] {
            t_current = ctx;
            for (;;) {
                try {
                    ctx->run();
                    return;
                } catch (const std::exception& e) {
                    // A bug, never a client's doing: log and keep the reactor alive.
                    logging::network().error("reactor={} event=uncaught_exception what=\"{}\"", i,
                                             e.what());
                }
            }
        });
    }
}

void reactor_pool::stop() {
    _work.clear();
    for (auto& ctx : _contexts) {
        ctx->stop();
    }
    for (auto& t : _threads) {
        if (t.joinable()) {
            t.join();
        }
    }
    _threads.clear();
}

}  // namespace samsa::server
