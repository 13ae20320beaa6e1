#pragma once
// Kafka's DelayedOperationPurgatory, for a thread-per-core broker: the
// delayed operations of one kind (fetch, produce, join...) on one shard,
// watched by key (a partition, a group) and timed out by the shard's timing
// wheel (docs/timing_wheel.md).
//
//   try_complete_else_watch(op, keys): try once; if not done, watch the keys
//     and arm the timeout.
//   check_and_complete(key): called after whatever may satisfy the ops
//     watching key (an append, the high watermark or the log start offset
//     moving); retries them.
//   wait_until_complete(op, keys): the same for a coroutine handler, which
//     resumes on its shard with the operation's result.
//
// An operation completed through one key stays in its other keys' lists, and
// an expired one in all of them, until a purge. As in Kafka, a purge of all
// lists runs once more than `purge_interval_requests` operations are
// completed but possibly still listed; it is posted to the shard, never run
// from inside a completion.
//
// Threading: everything on the shard's thread; no locks.
// Lifetime: the driver outlives its purgatories, and both are destroyed
// before their io_context. Destroying a purgatory abandons its pending
// operations: they never complete and their waiting coroutines are
// destroyed without resuming, as asio does for pending operations at
// shutdown.
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cluster/purgatory/delayed_operation.h"
#include "cluster/purgatory/purgatory_driver.h"

namespace samsa::cluster {

// What a purgatory does without knowing its key type: counts, the purge
// trigger, the timeouts.
class purgatory_base {
  public:
    // Kafka's fetch.purgatory.purge.interval.requests and
    // producer.purgatory.purge.interval.requests default.
    static constexpr size_t default_purge_interval = 1000;

    purgatory_base(std::string name, purgatory_driver& driver, size_t purge_interval_requests);
    virtual ~purgatory_base();
    purgatory_base(const purgatory_base&) = delete;
    purgatory_base& operator=(const purgatory_base&) = delete;

    const std::string& name() const { return _name; }
    purgatory_driver& driver() { return _driver; }
    // Operations watched and not completed yet (Kafka's numDelayed).
    size_t delayed() const { return _pending.load(std::memory_order_relaxed); }
    // Operations in watch lists, completed ones not purged yet included
    // (Kafka's PurgatorySize).
    size_t watched() const { return _estimated_watched.load(std::memory_order_relaxed); }

    // Every live purgatory's name, watched() and delayed(), from any thread
    // (a /metrics scrape): the counts are atomics that only the owning
    // reactor writes, and a purgatory leaves the registry before it goes.
    static void for_each(
        const std::function<void(const std::string& name, size_t watched, size_t delayed)>& fn);
    // Removes completed operations from every watch list now; returns how
    // many list entries went.
    size_t purge();
    // Purges run so far, by the trigger or by purge().
    size_t purges() const { return _purges; }

  protected:
    // Counts `op` as pending here and arms its timeout.
    void start_watching(delayed_operation& op);
    // `op` will never complete (the purgatory is going away).
    static void abandon(delayed_operation& op) { op.abandon(); }
    bool owns(const delayed_operation& op) const { return op._owner == this; }
    virtual size_t purge_completed() = 0;

  private:
    friend class delayed_operation;
    void operation_completed();

    std::string _name;
    purgatory_driver& _driver;
    size_t _purge_interval;
    std::atomic<size_t> _pending{0};
    // Operations put in watch lists since the last purge, completed or not
    // (Kafka's estimatedTotalOperations).
    std::atomic<size_t> _estimated_watched{0};
    bool _purge_posted = false;
    size_t _purges = 0;
    // Expires with the purgatory, for a purge posted but not run yet.
    std::shared_ptr<char> _alive = std::make_shared<char>();
};

// Key: anything hashable, e.g. std::string or a (topic, partition) struct
// with a Hash.
template <typename Key, typename Hash = std::hash<Key>, typename KeyEqual = std::equal_to<Key>>
class purgatory final : public purgatory_base {
  public:
    using op_ptr = std::shared_ptr<delayed_operation>;

    purgatory(std::string name, purgatory_driver& driver,
              size_t purge_interval_requests = default_purge_interval)
        : purgatory_base(std::move(name), driver, purge_interval_requests) {}

    ~purgatory() override {
        auto watchers = std::move(_watchers);
        _watchers.clear();
        for (auto& [key, ops] : watchers) {
            for (auto& op : ops) {
                if (owns(*op)) {
                    abandon(*op);
                }
            }
        }
    }

    // Tries to complete `op` now; if that fails, watches it under every key
    // (at least one) and arms its timeout of op->delay_ms(). True if it
    // completed here. The watch lists keep a pending operation alive.
    bool try_complete_else_watch(const op_ptr& op, std::span<const Key> keys) {
        assert(!keys.empty() && "an operation needs a key to be watched by");
        assert(!op->is_completed() && !owns(*op));
        if (op->try_complete() || op->is_completed()) {
            return true;
        }
        for (const Key& key : keys) {
            _watchers[key].push_back(op);
        }
        start_watching(*op);
        return false;
    }
    bool try_complete_else_watch(const op_ptr& op, std::initializer_list<Key> keys) {
        return try_complete_else_watch(op, std::span<const Key>(keys.begin(), keys.size()));
    }

    // Retries the operations watching `key`; returns how many completed.
    // Completed ones leave this key's list. Safe against operations whose
    // completion watches, completes or checks other operations, on this key
    // or others.
    size_t check_and_complete(const Key& key) {
        auto it = _watchers.find(key);
        if (it == _watchers.end()) {
            return 0;
        }
        // Work on a list of our own: completions run user code that may
        // change the map under us.
        std::vector<op_ptr> ops = std::move(it->second);
        it->second.clear();
        size_t completed = 0;
        size_t kept = 0;
        for (size_t i = 0; i < ops.size(); ++i) {
            op_ptr op = std::move(ops[i]);
            if (!op->is_completed() && op->try_complete()) {
                ++completed;
            }
            if (!op->is_completed()) {
                ops[kept++] = std::move(op);
            }
        }
        ops.resize(kept);
        // Operations watched on this key while we worked go after ours.
        it = _watchers.find(key);
        if (it != _watchers.end()) {
            ops.insert(ops.end(), std::make_move_iterator(it->second.begin()),
                       std::make_move_iterator(it->second.end()));
            if (ops.empty()) {
                _watchers.erase(it);
            } else {
                it->second = std::move(ops);
            }
        } else if (!ops.empty()) {
            _watchers.emplace(key, std::move(ops));
        }
        return completed;
    }

    // Watches `op` like try_complete_else_watch() and completes `token` with
    // the operation's result (Op::result_type) once it completes or times
    // out. The handler is always posted to its executor (for a coroutine, its
    // shard), never invoked inline, even when the first try succeeds.
    template <typename Op, typename CompletionToken>
    auto async_wait_until_complete(std::shared_ptr<Op> op, std::vector<Key> keys,
                                   CompletionToken&& token) {
        using result_t = typename Op::result_type;
        static_assert(std::is_base_of_v<awaitable_operation<result_t>, Op>,
                      "wait on an awaitable_operation<T>");
        return asio::async_initiate<CompletionToken, void(result_t)>(
            [this](auto handler, std::shared_ptr<Op> op, std::vector<Key> keys) {
                using handler_t = std::decay_t<decltype(handler)>;
                // The waiter is in place before the first try, so every way
                // to complete reaches it.
                op->set_waiter(
                    std::make_unique<detail::result_waiter_impl<result_t, handler_t,
                                                                asio::io_context::executor_type>>(
                        std::move(handler), driver().executor()));
                if (!op->is_completed()) {  // else set_waiter() posted the result
                    try_complete_else_watch(op, std::span<const Key>(keys));
                }
            },
            token, std::move(op), std::move(keys));
    }

    // For a coroutine handler:
    //   auto r = co_await fetches.wait_until_complete(op, key);
    //   auto r = co_await fetches.wait_until_complete(op, keys);  // a vector
    // Not `wait_until_complete(op, {a, b})`: GCC 12 rejects an
    // initializer_list built inside a co_await operand ("array used as
    // initializer"); build the vector on its own line first.
    template <typename Op>
    asio::awaitable<typename Op::result_type> wait_until_complete(std::shared_ptr<Op> op,
                                                                  std::vector<Key> keys) {
        co_return co_await async_wait_until_complete(std::move(op), std::move(keys),
                                                     asio::use_awaitable);
    }
    template <typename Op>
    asio::awaitable<typename Op::result_type> wait_until_complete(std::shared_ptr<Op> op, Key key) {
        std::vector<Key> keys;
        keys.push_back(std::move(key));
        co_return co_await async_wait_until_complete(std::move(op), std::move(keys),
                                                     asio::use_awaitable);
    }

    // Entries in all watch lists, including completed operations not purged
    // yet (Kafka's watched()).
    size_t watched() const {
        size_t n = 0;
        for (const auto& [key, ops] : _watchers) {
            n += ops.size();
        }
        return n;
    }
    size_t watched(const Key& key) const {
        auto it = _watchers.find(key);
        return it == _watchers.end() ? 0 : it->second.size();
    }
    // Keys with a watch list.
    size_t watch_keys() const { return _watchers.size(); }

  private:
    size_t purge_completed() override {
        size_t purged = 0;
        for (auto it = _watchers.begin(); it != _watchers.end();) {
            auto& ops = it->second;
            const size_t before = ops.size();
            std::erase_if(ops, [](const op_ptr& op) { return op->is_completed(); });
            purged += before - ops.size();
            it = ops.empty() ? _watchers.erase(it) : std::next(it);
        }
        return purged;
    }

    std::unordered_map<Key, std::vector<op_ptr>, Hash, KeyEqual> _watchers;
};

}  // namespace samsa::cluster
