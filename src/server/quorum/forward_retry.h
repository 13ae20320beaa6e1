#pragma once
// The patience of Kafka's forwarding manager (KIP-590): a request for the
// active controller that finds none (an election under way, the old
// controller's connection broken, an answer saying it no longer leads) waits
// retry.backoff.ms and is sent again, until the request's own deadline; only
// then does the last failure become the answer.
#include <algorithm>
#include <asio/awaitable.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>

#include "common/result.h"

namespace samsa::server::quorum {

// How long a request may wait for a controller: its own timeout where it has
// one, else request.timeout.ms.
template <typename Request>
std::chrono::milliseconds patience_of(const Request& req, int32_t request_timeout_ms) {
    if constexpr (requires { req.timeout_ms; }) {
        if (req.timeout_ms > 0) {
            return std::chrono::milliseconds(req.timeout_ms);
        }
    }
    return std::chrono::milliseconds(std::max(request_timeout_ms, 0));
}

// Between two tries while no controller answers (Kafka's retry.backoff.ms).
constexpr std::chrono::milliseconds forward_retry_backoff{100};

inline asio::awaitable<void> sleep_for(std::chrono::milliseconds d) {
    asio::steady_timer t(co_await asio::this_coro::executor, d);
    std::error_code ignored;
    co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
}

// Runs `attempt()` (an awaitable<result<Response>>) until it gives an answer
// that `worth_retrying` refuses, or until `patience` has passed; returns the
// last answer.
template <typename Response, typename Attempt, typename WorthRetrying>
asio::awaitable<result<Response>> retry_until_deadline(std::chrono::milliseconds patience,
                                                       Attempt attempt,
                                                       WorthRetrying worth_retrying) {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (true) {
        result<Response> r = co_await attempt();
        auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now());
        if (!worth_retrying(r) || left.count() <= 0) {
            co_return r;
        }
        co_await sleep_for(std::min(left, forward_retry_backoff));
    }
}

}  // namespace samsa::server::quorum
