// AlterReplicaLogDirs (key 34) against the in-process broker: Kafka's error
// per partition (a dir that is not configured, a topic that does not exist),
// and a move to the dir the replica is in, which is done at once.
#include <gtest/gtest.h>

#include <map>

#include "broker_fixture.h"
#include "protocol/generated/alter_replica_log_dirs_request.h"
#include "protocol/generated/alter_replica_log_dirs_response.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "storage/topic_partition.h"

namespace samsa::server::test {
namespace {

using protocol::alter_replica_log_dirs_request;
using protocol::alter_replica_log_dirs_response;

class alter_replica_log_dirs_test : public broker_test {
  protected:
    // The errors of one request, by "topic-partition".
    std::map<std::string, error_code> alter(
        const std::vector<std::pair<std::string, storage::topic_partition>>& moves) {
        alter_replica_log_dirs_request req;
        for (const auto& [dir, tp] : moves) {
            auto& d = req.dirs.emplace_back();
            d.path = dir;
            auto& t = d.topics.emplace_back();
            t.name = tp.topic;
            t.partitions = {tp.partition};
        }
        auto resp = broker().call<alter_replica_log_dirs_response>(req, 2);
        std::map<std::string, error_code> out;
        for (const auto& t : resp.results) {
            for (const auto& p : t.partitions) {
                out[t.topic_name + "-" + std::to_string(p.partition_index)] =
                    error_code(p.error_code);
            }
        }
        return out;
    }

    std::string log_dir() {
        protocol::describe_log_dirs_request req;
        req.topics = std::nullopt;
        auto resp = broker().call<protocol::describe_log_dirs_response>(req, 4);
        return resp.results.empty() ? "" : resp.results[0].log_dir;
    }
};

TEST_F(alter_replica_log_dirs_test, each_partition_gets_kafkas_error) {
    const auto name = unique_name("arld");
    broker().create_topic(name, 1);
    const auto dir = log_dir();
    ASSERT_FALSE(dir.empty());
    const auto missing = unique_name("arld-missing");
    auto errors =
        alter({{dir + "-not-configured", {name, 0}}, {dir, {missing, 0}}, {dir, {name, 5}}});
    ASSERT_EQ(errors.size(), 3u);
    EXPECT_EQ(errors[name + "-0"], error_code::log_dir_not_found);
    EXPECT_EQ(errors[name + "-5"], error_code::unknown_topic_or_partition);
    EXPECT_EQ(errors[missing + "-0"], error_code::unknown_topic_or_partition);
}

TEST_F(alter_replica_log_dirs_test, the_dir_the_replica_is_in_is_a_move_done_at_once) {
    const auto name = unique_name("arld-here");
    broker().create_topic(name, 1);
    ASSERT_ERROR(broker().produce(name, 0, 3).error_code, error_code::none);
    auto errors = alter({{log_dir(), {name, 0}}});
    EXPECT_EQ(errors[name + "-0"], error_code::none);
    // No future replica was made.
    protocol::describe_log_dirs_request req;
    req.topics = std::nullopt;
    auto resp = broker().call<protocol::describe_log_dirs_response>(req, 4);
    for (const auto& d : resp.results) {
        for (const auto& t : d.topics) {
            for (const auto& p : t.partitions) {
                EXPECT_FALSE(p.is_future_key) << t.name;
            }
        }
    }
}

}  // namespace
}  // namespace samsa::server::test
