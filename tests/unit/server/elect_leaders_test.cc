// ElectLeaders (key 43) against the in-process broker: on a one-node
// cluster every partition already has its preferred leader, so a preferred
// election is ELECTION_NOT_NEEDED; unknown partitions are
// UNKNOWN_TOPIC_OR_PARTITION, and an election of every partition (null
// topics) leaves out those that need none, as Kafka's controller does.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"

namespace samsa::server::test {
namespace {

using protocol::elect_leaders_request;
using protocol::elect_leaders_response;

constexpr int8_t k_preferred = 0;
constexpr int8_t k_unclean = 1;

class elect_leaders_test : public broker_test {
  protected:
    elect_leaders_response elect(int8_t type, const std::string& topic,
                                 std::vector<int32_t> partitions) {
        elect_leaders_request req;
        req.election_type = type;
        req.timeout_ms = 30000;
        auto& t = req.topic_partitions->emplace_back();
        t.topic = topic;
        t.partitions = std::move(partitions);
        return broker().call<elect_leaders_response>(req, 2);
    }
    int16_t one(int8_t type, const std::string& topic, int32_t partition) {
        auto resp = elect(type, topic, {partition});
        EXPECT_ERROR(resp.error_code, error_code::none);
        if (resp.replica_election_results.size() != 1 ||
            resp.replica_election_results[0].partition_result.size() != 1) {
            ADD_FAILURE() << "unexpected response shape";
            return -1;
        }
        return resp.replica_election_results[0].partition_result[0].error_code;
    }
};

TEST_F(elect_leaders_test, preferred_leader_in_place_is_election_not_needed) {
    const auto name = unique_name("el-preferred");
    broker().create_topic(name);
    EXPECT_ERROR(one(k_preferred, name, 0), error_code::election_not_needed);
}

TEST_F(elect_leaders_test, unclean_with_leader_is_election_not_needed) {
    const auto name = unique_name("el-unclean");
    broker().create_topic(name);
    EXPECT_ERROR(one(k_unclean, name, 0), error_code::election_not_needed);
}

TEST_F(elect_leaders_test, unknown_topic_is_unknown_topic_or_partition) {
    EXPECT_ERROR(one(k_preferred, unique_name("el-missing"), 0),
                 error_code::unknown_topic_or_partition);
}

TEST_F(elect_leaders_test, partition_beyond_count_is_unknown_topic_or_partition) {
    const auto name = unique_name("el-partition");
    broker().create_topic(name);
    EXPECT_ERROR(one(k_preferred, name, 5), error_code::unknown_topic_or_partition);
}

TEST_F(elect_leaders_test, all_partitions_leave_out_those_needing_none) {
    const auto name = unique_name("el-all");
    broker().create_topic(name);
    elect_leaders_request req;
    req.election_type = k_preferred;
    req.topic_partitions = std::nullopt;
    auto resp = broker().call<elect_leaders_response>(req, 2);
    EXPECT_ERROR(resp.error_code, error_code::none);
    for (const auto& r : resp.replica_election_results) {
        EXPECT_NE(r.topic, name);
    }
}

}  // namespace
}  // namespace samsa::server::test
