#include "coordinator/txn/producer_id_manager.h"
#include "common/logging/loggers.h"

#include <spdlog/spdlog.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/this_coro.hpp>

namespace samsa::coordinator::txn {

namespace {

// Kafka's RPCProducerIdManager asks for the next block once this fraction of
// the current one is used.
constexpr double prefetch_threshold = 0.9;

}  // namespace

producer_id_manager::producer_id_manager(producer_id_block_source source)
    : _source(std::move(source)) {}

int64_t producer_id_manager::remaining() const {
    std::lock_guard lock(_mutex);
    int64_t n = 0;
    for (const auto& r : _ranges) {
        n += r.end - r.next;
    }
    return n;
}

int64_t producer_id_manager::blocks_fetched() const {
    std::lock_guard lock(_mutex);
    return _blocks_fetched;
}

void producer_id_manager::add_block_locked(const metadata::producer_id_block& b) {
    ++_blocks_fetched;
    if (b.count > 0) {
        _ranges.push_back(
            {b.first_producer_id, b.first_producer_id, b.first_producer_id + b.count});
    }
}

int64_t producer_id_manager::take_locked(bool& prefetch) {
    while (!_ranges.empty() && _ranges.front().next == _ranges.front().end) {
        _ranges.pop_front();
    }
    if (_ranges.empty()) {
        return -1;
    }
    auto& current = _ranges.front();
    const int64_t id = current.next++;
    // Only the last block at hand triggers a fetch: with a next block queued
    // there is no hurry.
    const int64_t used = current.next - current.first;
    const int64_t size = current.end - current.first;
    if (_ranges.size() == 1 && !_prefetching && double(used) >= prefetch_threshold * double(size)) {
        _prefetching = true;
        prefetch = true;
    }
    return id;
}

asio::awaitable<void> producer_id_manager::prefetch() {
    auto block = co_await _source();
    std::lock_guard lock(_mutex);
    _prefetching = false;
    if (block) {
        add_block_locked(*block);
    } else {
        // The next caller that runs out fetches again and reports the error.
        logging::transactions().warn("event=producer_id_prefetch_failed error=\"{}\"",
                                     block.err().message);
    }
}

asio::awaitable<result<int64_t>> producer_id_manager::next_producer_id() {
    for (;;) {
        bool start_prefetch = false;
        int64_t id;
        {
            std::lock_guard lock(_mutex);
            id = take_locked(start_prefetch);
        }
        if (start_prefetch) {
            auto executor = co_await asio::this_coro::executor;
            auto fetch = [this]() { return prefetch(); };
            asio::co_spawn(executor, fetch, asio::detached);
        }
        if (id >= 0) {
            co_return id;
        }
        // None left (the first request, or a burst outran the prefetch): fetch
        // a block and take from it.
        auto block = co_await _source();
        if (!block) {
            co_return block.err();
        }
        std::lock_guard lock(_mutex);
        add_block_locked(*block);
    }
}

}  // namespace samsa::coordinator::txn
