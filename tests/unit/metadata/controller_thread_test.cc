// The controller's own thread: operations awaited from another io_context
// (a reactor) run there, one at a time, and the caller resumes on its own
// thread; listeners see every published image.
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <atomic>
#include <thread>

#include "controller_fixture.h"
#include "metadata/controller_apis.h"

namespace samsa::metadata {
namespace {

using testing::controller_fixture;

class controller_thread : public controller_fixture {};

TEST_F(controller_thread, awaited_operations_run_on_the_controller_and_resume_the_caller) {
    std::vector<std::pair<int64_t, int64_t>> seen;  // (prev offset, next offset)
    std::thread::id listener_thread;
    ctl().subscribe([&](auto prev, auto next) {
        listener_thread = std::this_thread::get_id();
        seen.emplace_back(prev->offset, next->offset);
    });
    ctl().start();
    ASSERT_TRUE(ctl().register_broker_blocking(self()));

    asio::io_context reactor;
    std::atomic<int> done{0};
    std::vector<std::thread::id> resumed_on(8);
    std::vector<int16_t> codes(8, -1);
    for (int i = 0; i < 8; ++i) {
        asio::co_spawn(
            reactor,
            [&, i]() -> asio::awaitable<void> {
                protocol::create_topics_request req;
                auto& t = req.topics.emplace_back();
                t.name = "topic-" + std::to_string(i % 4);  // each name twice: one wins
                t.num_partitions = 2;
                t.replication_factor = 1;
                t.configs.emplace_back().name = "retention.ms";
                t.configs.back().value = "86400000";
                auto resp = co_await submit(ctl(), std::move(req));
                codes[i] = resp.topics.at(0).error_code;
                resumed_on[i] = std::this_thread::get_id();
                ++done;
            },
            asio::detached);
    }
    std::thread reactor_thread([&] {
        while (done < 8) {
            reactor.run_for(std::chrono::milliseconds(10));
        }
    });
    const auto reactor_id = reactor_thread.get_id();
    reactor_thread.join();
    ctl().stop();

    int created = 0;
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(resumed_on[i], reactor_id);
        EXPECT_TRUE(codes[i] == 0 || error_code(codes[i]) == error_code::topic_already_exists)
            << codes[i];
        created += codes[i] == 0;
    }
    EXPECT_EQ(created, 4);
    EXPECT_EQ(image()->topics_by_name.size(), 4u);
    EXPECT_NE(listener_thread, std::this_thread::get_id());
    // The start-up call (from an empty image), the registration, four topics.
    ASSERT_EQ(seen.size(), 6u);
    EXPECT_EQ(seen[0].first, -1);
    for (size_t i = 1; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].first, seen[i - 1].second);
    }
}

TEST_F(controller_thread, producer_ids_and_configs_through_the_awaitables) {
    ctl().start();
    ASSERT_TRUE(ctl().register_broker_blocking(self()));
    asio::io_context reactor;
    std::optional<result<producer_id_block>> block;
    std::optional<protocol::incremental_alter_configs_response> altered;
    asio::co_spawn(
        reactor,
        [&]() -> asio::awaitable<void> {
            block.emplace(co_await ctl().allocate_producer_ids());
            protocol::incremental_alter_configs_request req;
            auto& r = req.resources.emplace_back();
            r.resource_type = int8_t(config_resource_type::broker);
            r.resource_name = "1";
            auto& c = r.configs.emplace_back();
            c.name = "log.retention.ms";
            c.value = "1000";
            altered.emplace(co_await submit(ctl(), std::move(req)));
        },
        asio::detached);
    reactor.run();
    ctl().stop();
    ASSERT_TRUE(block && *block);
    EXPECT_EQ((*block)->first_producer_id, 0);
    EXPECT_EQ((*block)->count, producer_id_block_size);
    ASSERT_TRUE(altered);
    EXPECT_EQ(altered->responses.at(0).error_code, 0);
    EXPECT_EQ(image()->broker_configs.at("1").at("log.retention.ms"), "1000");
}

}  // namespace
}  // namespace samsa::metadata
