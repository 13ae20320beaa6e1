// AlterPartition (key 56, KIP-497) on the controller listener, answered as
// Kafka's ReplicationControlManager.alterPartition answers it:
// STALE_BROKER_EPOCH at the top level for an unregistered broker or a wrong
// broker epoch, UNKNOWN_TOPIC_ID for a topic id the controller does not know
// (v2+), FENCED_LEADER_EPOCH for a leader epoch below the partition's,
// INVALID_UPDATE_VERSION for a partition epoch below the partition's, and
// NOT_CONTROLLER for epochs above the partition's. Every request works on a
// topic of this file's own, and proposes the ISR the partition already has,
// so that none could change a partition even if it were accepted.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "metadata/metadata_image.h"
#include "protocol/generated/alter_partition_request.h"
#include "protocol/generated/alter_partition_response.h"
#include "server/broker_context.h"
#include "server/server.h"

namespace samsa::server::test {
namespace {

using protocol::alter_partition_request;
using protocol::alter_partition_response;

class alter_partition_test : public broker_test {
  protected:
    void SetUp() override {
        broker_test::SetUp();
        if (HasFatalFailure()) {
            return;
        }
        _topic = unique_name("alter-partition");
        _topic_id = broker().create_topic(_topic, 1);
        ASSERT_FALSE(_topic_id == uuid{});
        auto image = broker().srv().context().metadata.read();
        auto self = image->brokers.find(node_id{broker().node_id()});
        ASSERT_NE(self, image->brokers.end());
        _broker_epoch = self->second.epoch;
        const auto* t = image->topic(_topic_id);
        ASSERT_NE(t, nullptr);
        ASSERT_EQ(t->partitions.size(), 1u);
        _partition = t->partitions[0];
        ASSERT_EQ(_partition.leader.value(), broker().node_id());
    }

    void TearDown() override {
        if (_topic_id == uuid{}) {
            return;
        }
        // Nothing was accepted: the partition is as it was.
        auto image = broker().srv().context().metadata.read();
        const auto* t = image->topic(_topic_id);
        ASSERT_NE(t, nullptr);
        ASSERT_EQ(t->partitions.size(), 1u);
        EXPECT_EQ(t->partitions[0].leader_epoch, _partition.leader_epoch);
        EXPECT_EQ(t->partitions[0].partition_epoch, _partition.partition_epoch);
        EXPECT_EQ(t->partitions[0].isr, _partition.isr);
    }

    // An ISR "change" of this file's partition to the ISR it has, by `broker_id`
    // in `broker_epoch`, in the given leader and partition epochs.
    alter_partition_request change(int32_t broker_id, int64_t broker_epoch, int32_t leader_epoch,
                                   int32_t partition_epoch) {
        alter_partition_request req;
        req.broker_id = node_id{broker_id};
        req.broker_epoch = broker_epoch;
        auto& t = req.topics.emplace_back();
        t.topic_name = _topic;
        t.topic_id = _topic_id;
        auto& p = t.partitions.emplace_back();
        p.partition_index = 0;
        p.leader_epoch = leader_epoch;
        p.partition_epoch = partition_epoch;
        p.new_isr = _partition.isr;  // v0-v2
        for (node_id r : _partition.isr) {
            auto& b = p.new_isr_with_epochs.emplace_back();  // v3
            b.broker_id = r;
            b.broker_epoch = -1;
        }
        return req;
    }
    alter_partition_request change(int32_t leader_epoch, int32_t partition_epoch) {
        return change(broker().node_id(), _broker_epoch, leader_epoch, partition_epoch);
    }
    alter_partition_request change() {
        return change(_partition.leader_epoch, _partition.partition_epoch);
    }

    alter_partition_response send(const alter_partition_request& req,
                                  int16_t version = alter_partition_request::max_version) {
        return broker().call<alter_partition_response>(req, version, listener_kind::controller);
    }

    // The error of the single partition of an answer without a top-level error.
    static int16_t partition_error(const alter_partition_response& resp) {
        EXPECT_ERROR(resp.error_code, error_code::none);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "expected one topic of one partition, got " << resp.topics.size()
                          << " topics";
            return -1;
        }
        return resp.topics[0].partitions[0].error_code;
    }

    std::string _topic;
    uuid _topic_id{};
    int64_t _broker_epoch = -1;
    metadata::partition_registration _partition;
};

TEST_F(alter_partition_test, unknown_topic_id_is_unknown_topic_id) {
    auto req = change();
    req.topics[0].topic_id = uuid::random();
    for (int16_t v = 2; v <= alter_partition_request::max_version; ++v) {
        auto resp = send(req, v);
        EXPECT_ERROR(partition_error(resp), error_code::unknown_topic_id) << "v" << v;
        ASSERT_EQ(resp.topics.size(), 1u);
        EXPECT_EQ(resp.topics[0].topic_id, req.topics[0].topic_id) << "v" << v;
    }
}

TEST_F(alter_partition_test, stale_broker_epoch_is_stale_broker_epoch) {
    for (int64_t epoch : {_broker_epoch - 1, _broker_epoch + 1000000}) {
        auto resp = send(
            change(broker().node_id(), epoch, _partition.leader_epoch, _partition.partition_epoch));
        EXPECT_ERROR(resp.error_code, error_code::stale_broker_epoch) << "epoch " << epoch;
        EXPECT_TRUE(resp.topics.empty()) << "epoch " << epoch;
    }
}

TEST_F(alter_partition_test, unregistered_broker_is_stale_broker_epoch) {
    auto resp = send(change(7301, 0, _partition.leader_epoch, _partition.partition_epoch));
    EXPECT_ERROR(resp.error_code, error_code::stale_broker_epoch);
    EXPECT_TRUE(resp.topics.empty());
}

TEST_F(alter_partition_test, older_leader_epoch_is_fenced_leader_epoch) {
    for (int16_t v = 2; v <= alter_partition_request::max_version; ++v) {
        auto resp = send(change(_partition.leader_epoch - 1, _partition.partition_epoch), v);
        EXPECT_ERROR(partition_error(resp), error_code::fenced_leader_epoch) << "v" << v;
    }
}

TEST_F(alter_partition_test, older_partition_epoch_is_invalid_update_version) {
    for (int16_t v = 2; v <= alter_partition_request::max_version; ++v) {
        auto resp = send(change(_partition.leader_epoch, _partition.partition_epoch - 1), v);
        EXPECT_ERROR(partition_error(resp), error_code::invalid_update_version) << "v" << v;
    }
}

// Kafka: a leader epoch above the controller's means this controller is
// behind (no longer the active one): NOT_CONTROLLER, so the leader looks for
// the new controller.
TEST_F(alter_partition_test, newer_leader_epoch_is_not_controller) {
    auto resp = send(change(_partition.leader_epoch + 1, _partition.partition_epoch));
    EXPECT_ERROR(partition_error(resp), error_code::not_controller);
}

// As above for the partition epoch.
TEST_F(alter_partition_test, newer_partition_epoch_is_not_controller) {
    auto resp = send(change(_partition.leader_epoch, _partition.partition_epoch + 1));
    EXPECT_ERROR(partition_error(resp), error_code::not_controller);
}

// Kafka: a known topic id with a partition it does not have is
// UNKNOWN_TOPIC_OR_PARTITION (validateAlterPartitionData); UNKNOWN_TOPIC_ID is
// for an unknown topic.
TEST_F(alter_partition_test, unknown_partition_of_a_known_topic_is_unknown_topic_or_partition) {
    auto req = change();
    req.topics[0].partitions[0].partition_index = 5;
    auto resp = send(req);
    EXPECT_ERROR(partition_error(resp), error_code::unknown_topic_or_partition);
}

}  // namespace
}  // namespace samsa::server::test
