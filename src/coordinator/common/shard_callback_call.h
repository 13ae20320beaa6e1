#pragma once
// Runs `fn(manager, callback)` on a coordinator's shard and resumes the
// calling coroutine, on its own executor, with what the callback is given:
// how the group and transaction coordinators call their per-shard managers,
// whose operations answer through callbacks (possibly much later: a
// JoinGroup waits for the rebalance, an InitProducerId for a log write).
//
// `fn` is taken by reference (it lives in the caller's frame until the
// callback fires) and must only capture references.
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <memory>
#include <type_traits>
#include <utility>

namespace samsa::coordinator {

template <typename Resp, typename Manager, typename Fn>
asio::awaitable<Resp> call_with_callback(asio::io_context& shard_ctx, Manager* manager, Fn& fn) {
    co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(Resp)>(
        [&shard_ctx, manager, &fn](auto handler) {
            using handler_t = std::decay_t<decltype(handler)>;
            // std::function needs a copyable callable: share the handler.
            auto h = std::make_shared<handler_t>(std::move(handler));
            asio::post(shard_ctx, [manager, &fn, h] {
                fn(*manager, [h](Resp r) {
                    // Back to the waiting coroutine's executor, never inline.
                    auto ex = asio::get_associated_executor(*h);
                    asio::post(ex,
                               [h, r = std::move(r)]() mutable { std::move (*h)(std::move(r)); });
                });
            });
        },
        asio::use_awaitable);
}

}  // namespace samsa::coordinator
