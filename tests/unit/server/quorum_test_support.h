#pragma once
// A base for the tests of the KRaft RPCs on the controller listener (Vote,
// BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot): every test starts with
// the shared broker leading its one-node quorum, records the epoch, and ends
// by checking that the broker still leads in that same epoch, so no refused
// request may disturb the quorum the other tests share.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"

namespace samsa::server::test {

class quorum_test : public broker_test {
  protected:
    void SetUp() override {
        broker_test::SetUp();
        if (HasFatalFailure()) {
            return;
        }
        auto q = describe();
        ASSERT_EQ(q.leader_id, broker().node_id()) << "the broker does not lead the quorum";
        _epoch = q.leader_epoch;
        ASSERT_GE(_epoch, 1);
    }

    void TearDown() override {
        if (_epoch < 0) {
            return;
        }
        auto q = describe();
        EXPECT_EQ(q.leader_id, broker().node_id()) << "the broker no longer leads the quorum";
        EXPECT_EQ(q.leader_epoch, _epoch) << "the quorum moved to another epoch";
    }

    struct quorum_view {
        int32_t leader_id = -1;
        int32_t leader_epoch = -1;
    };

    // DescribeQuorum of __cluster_metadata-0 on the controller listener.
    quorum_view describe() {
        protocol::describe_quorum_request req;
        auto& t = req.topics.emplace_back();
        t.topic_name = "__cluster_metadata";
        t.partitions.emplace_back().partition_index = 0;
        auto resp =
            broker().call<protocol::describe_quorum_response>(req, 1, listener_kind::controller);
        quorum_view v;
        if (resp.topics.size() == 1 && resp.topics[0].partitions.size() == 1) {
            v.leader_id = resp.topics[0].partitions[0].leader_id.value();
            v.leader_epoch = resp.topics[0].partitions[0].leader_epoch;
        }
        return v;
    }

    int32_t _epoch = -1;  // the quorum's epoch when the test began
};

}  // namespace samsa::server::test
