#include "server/reactor_pool.h"

#include <spdlog/spdlog.h>

namespace samsa::server {

namespace {
thread_local asio::io_context* t_current = nullptr;
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

asio::io_context& reactor_pool::next() {
    auto& ctx = *_contexts[_next];
    _next = (_next + 1) % _contexts.size();
    return ctx;
}

void reactor_pool::start() {
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
                    spdlog::error("reactor={} event=uncaught_exception what=\"{}\"", i, e.what());
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
