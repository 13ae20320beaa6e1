#pragma once
// The time a request keeps the broker's threads busy (Kafka's request handler
// time, which the request_percentage quota of KIP-124 limits).
//
// A request runs as a coroutine on its connection's reactor, suspended while
// it waits (for replication, a long poll, another node): wall time would count
// those waits. So its coroutine runs on a `busy_executor`, which times every
// step the reactor runs for it and adds the step to the request's
// `busy_account`. While a step runs, `current_busy_account()` names that
// account, so work the step hands to another reactor (replica_manager's
// run_on_shard) can count there too, through a `busy_scope`.
//
// Thread-safety: a step and the work it hands out add to the account from
// different threads, so the total is atomic; each thread's current account is
// its own.
#include <asio/execution.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace samsa {

struct busy_account : std::enable_shared_from_this<busy_account> {
    std::atomic<int64_t> total_ns{0};  // finished steps
    // The step running now, on the request's own reactor (0: none). Read by
    // that reactor only, so a step can ask how long the request has run so
    // far, itself included.
    int64_t step_started_ns = 0;

    int64_t elapsed_ns() const;
};

// The account of the step this thread runs now, or null.
busy_account* current_busy_account();
// The same, for work that may outlive the step: a coroutine spawned inside a
// request's step starts inline and may hand work to another shard after the
// request is answered, so that work holds the account only while it runs
// (empty when the account is not owned by a shared_ptr, or there is none).
std::weak_ptr<busy_account> current_busy_account_handle();

// Counts the time from construction to destruction against `account` (no-op
// for null) and makes it this thread's current account meanwhile.
class busy_scope {
  public:
    explicit busy_scope(busy_account* account, bool step = false);
    ~busy_scope();
    busy_scope(const busy_scope&) = delete;
    busy_scope& operator=(const busy_scope&) = delete;

  private:
    busy_account* _account;
    busy_account* _saved;
    int64_t _started_ns;
    bool _step;
};

// An executor that runs everything through `Inner` and times each function
// it runs against one account (asio's executor concept: properties are
// forwarded to `Inner`).
template <typename Inner>
class busy_executor {
  public:
    busy_executor(Inner inner, std::shared_ptr<busy_account> account)
        : _inner(std::move(inner)), _account(std::move(account)) {}

    template <typename Property>
    auto query(const Property& p) const -> decltype(asio::query(std::declval<const Inner&>(), p)) {
        return asio::query(_inner, p);
    }
    template <typename Property>
    auto require(const Property& p) const
        -> busy_executor<std::decay_t<decltype(asio::require(std::declval<const Inner&>(), p))>> {
        return {asio::require(_inner, p), _account};
    }
    template <typename Property>
    auto prefer(const Property& p) const
        -> busy_executor<std::decay_t<decltype(asio::prefer(std::declval<const Inner&>(), p))>> {
        return {asio::prefer(_inner, p), _account};
    }
    template <typename Function>
    void execute(Function&& f) const {
        asio::execution::execute(_inner,
                                 [account = _account, f = std::forward<Function>(f)]() mutable {
                                     busy_scope step(account.get(), true);
                                     f();
                                 });
    }
    friend bool operator==(const busy_executor& a, const busy_executor& b) noexcept {
        return a._inner == b._inner && a._account == b._account;
    }
    friend bool operator!=(const busy_executor& a, const busy_executor& b) noexcept {
        return !(a == b);
    }

  private:
    template <typename>
    friend class busy_executor;
    Inner _inner;
    std::shared_ptr<busy_account> _account;
};

}  // namespace samsa
