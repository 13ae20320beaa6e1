#include "cluster/fetch_waiters.h"

#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

namespace samsa::cluster {

namespace {

// Completes when its shard's sequence moved past the ticket's, which notify()
// does before checking the partitions this operation watches.
class data_wait final : public awaitable_operation<bool> {
  public:
    data_wait(int64_t timeout_ms, const uint64_t& shard_seq, uint64_t ticket_seq)
        : awaitable_operation<bool>(timeout_ms), _shard_seq(shard_seq), _ticket_seq(ticket_seq) {}

    bool try_complete() override { return _shard_seq != _ticket_seq && force_complete(); }

  protected:
    bool make_result() override { return !expired(); }

  private:
    const uint64_t& _shard_seq;
    uint64_t _ticket_seq;
};

}  // namespace

fetch_waiters::fetch_waiters(std::vector<asio::io_context*> shards) {
    for (auto* ctx : shards) {
        auto s = std::make_unique<shard_state>();
        s->ctx = ctx;
        s->driver = std::make_unique<purgatory_driver>(ctx->get_executor());
        s->fetches = std::make_unique<fetch_purgatory>("Fetch", *s->driver);
        _shards.push_back(std::move(s));
    }
}

fetch_waiters::~fetch_waiters() {
    // Purgatories before their drivers.
    for (auto& s : _shards) {
        s->fetches.reset();
        s->driver.reset();
    }
}

fetch_waiters::ticket fetch_waiters::begin(asio::io_context& caller) {
    for (size_t i = 0; i < _shards.size(); ++i) {
        if (_shards[i]->ctx == &caller) {
            _shards[i]->interest.fetch_add(1, std::memory_order_acq_rel);
            return {i, _shards[i]->seq};
        }
    }
    return {_shards.size(), 0};  // not a reactor: wait() only sleeps
}

void fetch_waiters::end(const ticket& t) {
    if (t.shard < _shards.size()) {
        _shards[t.shard]->interest.fetch_sub(1, std::memory_order_acq_rel);
    }
}

asio::awaitable<void> fetch_waiters::wait(ticket& t,
                                          std::vector<storage::topic_partition> partitions,
                                          int64_t timeout_ms) {
    if (partitions.empty() || timeout_ms <= 0) {
        co_return;
    }
    if (t.shard >= _shards.size()) {
        // Not on a reactor, so no notification can reach this wait: sleep on
        // a timer for the whole timeout rather than return at once (a caller
        // that loops until its deadline would spin).
        asio::steady_timer timer(co_await asio::this_coro::executor,
                                 std::chrono::milliseconds(timeout_ms));
        std::error_code ignored;  // cancelled only at shutdown
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
        co_return;
    }
    auto& s = *_shards[t.shard];
    auto op = std::make_shared<data_wait>(timeout_ms, s.seq, t.seq);
    co_await s.fetches->wait_until_complete(op, std::move(partitions));
    t.seq = s.seq;
}

void fetch_waiters::notify(const storage::topic_partition& tp) {
    for (auto& sp : _shards) {
        auto* s = sp.get();
        if (s->interest.load(std::memory_order_acquire) == 0) {
            continue;
        }
        asio::post(*s->ctx, [s, tp] {
            ++s->seq;
            if (s->fetches) {
                s->fetches->check_and_complete(tp);
            }
        });
    }
}

}  // namespace samsa::cluster
