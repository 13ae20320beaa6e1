// The forwarding manager's patience (server/quorum/forward_retry.h): a
// request that finds no controller is sent again until its deadline, and
// only a failure that outlasts the deadline becomes the answer.
#include "server/quorum/forward_retry.h"

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <optional>
#include <vector>

namespace samsa::server::quorum {
namespace {

using namespace std::chrono_literals;

// A controller as a forwarding broker sees it: each try gets the next
// scripted answer (an error is a broken connection or no known leader; a
// value is the controller's error code in its answer).
struct scripted_controller {
    std::vector<result<int16_t>> answers;
    size_t tries = 0;

    asio::awaitable<result<int16_t>> attempt() {
        size_t i = std::min(tries, answers.size() - 1);
        ++tries;
        co_return answers[i];
    }
};

const int16_t not_controller = to_wire(error_code::not_controller);

struct outcome {
    result<int16_t> answer = error(error_code::unknown_server_error, "not run");
    std::chrono::milliseconds took{0};
};

outcome run(scripted_controller& c, std::chrono::milliseconds patience) {
    asio::io_context io;
    outcome out;
    auto start = std::chrono::steady_clock::now();
    auto worth_retrying = [](const result<int16_t>& r) { return !r || *r == not_controller; };
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            out.answer = co_await retry_until_deadline<int16_t>(
                patience, [&] { return c.attempt(); }, worth_retrying);
        },
        asio::detached);
    io.run();
    out.took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    return out;
}

result<int16_t> no_controller() {
    return error(error_code::not_controller, "no active controller is known");
}

TEST(forward_retry, waits_through_an_election_for_the_new_controller) {
    scripted_controller c{{no_controller(), no_controller(), int16_t{0}}};
    auto out = run(c, 60s);
    ASSERT_TRUE(out.answer.has_value()) << out.answer.err().message;
    EXPECT_EQ(*out.answer, 0);
    EXPECT_EQ(c.tries, 3u);
    // Two backoffs, not a busy loop.
    EXPECT_GE(out.took, 2 * forward_retry_backoff);
}

TEST(forward_retry, an_answer_saying_not_controller_is_sent_again) {
    scripted_controller c{{int16_t{not_controller}, int16_t{0}}};
    auto out = run(c, 60s);
    ASSERT_TRUE(out.answer.has_value());
    EXPECT_EQ(*out.answer, 0);
    EXPECT_EQ(c.tries, 2u);
}

TEST(forward_retry, any_other_answer_is_final_at_once) {
    scripted_controller c{{int16_t{to_wire(error_code::topic_already_exists)}, int16_t{0}}};
    auto out = run(c, 60s);
    ASSERT_TRUE(out.answer.has_value());
    EXPECT_EQ(*out.answer, to_wire(error_code::topic_already_exists));
    EXPECT_EQ(c.tries, 1u);
}

TEST(forward_retry, gives_up_with_the_last_failure_at_the_deadline) {
    scripted_controller c{{no_controller()}};
    auto out = run(c, 350ms);
    ASSERT_FALSE(out.answer.has_value());
    EXPECT_EQ(out.answer.err().code, error_code::not_controller);
    EXPECT_GE(out.took, 350ms);
    // At least one retry, and never more tries than backoffs fit in the patience.
    EXPECT_GE(c.tries, 2u);
    EXPECT_LE(c.tries, 5u);
}

TEST(forward_retry, no_patience_means_one_try) {
    scripted_controller c{{no_controller(), int16_t{0}}};
    auto out = run(c, 0ms);
    ASSERT_FALSE(out.answer.has_value());
    EXPECT_EQ(c.tries, 1u);
}

}  // namespace
}  // namespace samsa::server::quorum
