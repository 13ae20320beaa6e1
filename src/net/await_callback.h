#pragma once
// Awaiting an operation that answers through a callback (the metadata quorum,
// an outbound Kafka request): `start(done)` begins it and arranges for
// `done(value)` to be called once, on any thread; the awaiting coroutine
// resumes on its own executor with the value.
//
//   auto start = [&](std::function<void(raft::raft_message)> done) { q.handle_request(m, done); };
//   raft::raft_message answer = co_await await_callback<raft::raft_message>(start);
//
// `start` is a named object passed by reference, and the initiation captures
// only plain pointers: GCC 12 destroys temporaries and captures of a co_await
// expression twice.
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <functional>
#include <memory>
#include <optional>

namespace samsa::net {

template <typename T, typename Start>
asio::awaitable<T> await_callback(Start& start) {
    std::optional<T> out;
    auto* result = &out;
    auto* begin = &start;
    co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(
        [result, begin](auto handler) {
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            (*begin)(std::function<void(T)>([result, h](T value) {
                result->emplace(std::move(value));
                auto ex = asio::get_associated_executor(*h);
                asio::post(ex, std::move(*h));
            }));
        },
        asio::use_awaitable);
    co_return std::move(*out);
}

}  // namespace samsa::net
