#pragma once
// Classic consumer groups for the group API tests: finding the group
// coordinator first (as clients do: FindCoordinator creates __consumer_offsets
// and the coordinator loads it), joining a group as its
// only member (JoinGroup with the member id the broker requires since v4,
// then SyncGroup) so that a test starts from a Stable group, and committing
// offsets. Every call retries while the group coordinator is still loading
// (__consumer_offsets is created on first use).
#include <string>
#include <vector>

#include "broker_fixture.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"

namespace samsa::server::test {

// FindCoordinator until this node answers for groups, then DescribeGroups
// until the coordinator has loaded its partition. False after k_deadline.
bool ensure_group_coordinator(broker_fixture& b);

// Base of the group API tests: the group coordinator is ready in SetUp.
class group_test : public broker_test {
  protected:
    void SetUp() override {
        broker_test::SetUp();
        if (!HasFatalFailure()) {
            ASSERT_TRUE(ensure_group_coordinator(broker())) << "the group coordinator is not ready";
        }
    }
};

struct group_member {
    std::string member_id;
    int32_t generation = -1;
};

// Session and rebalance timeouts of the members these helpers join.
inline constexpr int32_t k_session_timeout_ms = 30000;

// Consumer protocol metadata (version 0) subscribing to `topics`.
bytes subscription(const std::vector<std::string>& topics);

// A JoinGroup (v5) request of `member_id` with one "range" protocol.
protocol::join_group_request join_request(const std::string& group, const std::string& member_id,
                                          const std::vector<std::string>& topics = {},
                                          const std::string& protocol_type = "consumer");

// Sends `req`, retrying while the coordinator answers COORDINATOR_LOAD_IN_PROGRESS,
// COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR.
protocol::join_group_response join(broker_fixture& b, const protocol::join_group_request& req,
                                   int16_t version = 5);

// Joins `group` as its only member and syncs: the group is Stable afterwards.
// A failure is reported and gives an empty member id.
group_member join_stable(broker_fixture& b, const std::string& group,
                         const std::vector<std::string>& topics = {},
                         const std::string& protocol_type = "consumer");

// OffsetCommit (v8) of one offset; the partition's error code. Generation -1
// and an empty member id commit as a standalone consumer.
int16_t commit(broker_fixture& b, const std::string& group, const std::string& topic,
               int32_t partition, int64_t offset, const group_member& m = {},
               const std::optional<std::string>& metadata = "");

}  // namespace samsa::server::test
