// AllocateProducerIds (key 67, KIP-730) on the controller listener, answered
// as Kafka's ProducerIdControlManager.generateNextProducerId answers it: a
// registered broker in its current epoch gets the next block of 1000 ids,
// above every block handed out before; a broker id that is not registered,
// or a registered broker's wrong epoch, is STALE_BROKER_EPOCH
// (ClusterControlManager.checkBrokerEpoch). Taking a block only moves the
// next block on; the fixture's own producer id manager keeps working.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "metadata/metadata_image.h"
#include "protocol/generated/allocate_producer_ids_request.h"
#include "protocol/generated/allocate_producer_ids_response.h"
#include "server/broker_context.h"
#include "server/server.h"

namespace samsa::server::test {
namespace {

using protocol::allocate_producer_ids_request;
using protocol::allocate_producer_ids_response;

// Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE.
constexpr int32_t k_block_size = 1000;

class allocate_producer_ids_test : public broker_test {
  protected:
    int64_t self_epoch() {
        auto image = broker().srv().context().metadata.read();
        auto it = image->brokers.find(node_id{broker().node_id()});
        return it == image->brokers.end() ? -1 : it->second.epoch;
    }

    allocate_producer_ids_response allocate(int32_t id, int64_t epoch) {
        allocate_producer_ids_request req;
        req.broker_id = node_id{id};
        req.broker_epoch = epoch;
        return broker().call<allocate_producer_ids_response>(req, 0, listener_kind::controller);
    }
};

TEST_F(allocate_producer_ids_test, registered_broker_gets_consecutive_blocks) {
    const int64_t epoch = self_epoch();
    ASSERT_GE(epoch, 0);
    auto first = allocate(broker().node_id(), epoch);
    ASSERT_ERROR(first.error_code, error_code::none);
    EXPECT_GE(first.producer_id_start.value(), 0);
    EXPECT_EQ(first.producer_id_len, k_block_size);
    auto second = allocate(broker().node_id(), epoch);
    ASSERT_ERROR(second.error_code, error_code::none);
    EXPECT_EQ(second.producer_id_len, k_block_size);
    // Blocks never overlap; other tests may take blocks in between.
    EXPECT_GE(second.producer_id_start.value(),
              first.producer_id_start.value() + first.producer_id_len);
}

TEST_F(allocate_producer_ids_test, the_next_block_is_recorded_in_the_metadata) {
    const int64_t epoch = self_epoch();
    ASSERT_GE(epoch, 0);
    auto block = allocate(broker().node_id(), epoch);
    ASSERT_ERROR(block.error_code, error_code::none);
    const int64_t end = block.producer_id_start.value() + block.producer_id_len;
    // The ProducerIdsRecord commits before the answer; the published image
    // follows the commit.
    bool recorded = broker_fixture::wait_until([&] {
        return broker().srv().context().metadata.read()->producer_ids.next_producer_id >= end;
    });
    EXPECT_TRUE(recorded) << "next_producer_id stays below " << end;
}

// Kafka: checkBrokerEpoch finds no registration and throws
// StaleBrokerEpochException.
TEST_F(allocate_producer_ids_test, unregistered_broker_is_stale_broker_epoch) {
    auto resp = allocate(7201, 0);
    EXPECT_ERROR(resp.error_code, error_code::stale_broker_epoch);
}

// As above, for the fixture's broker in a wrong epoch.
TEST_F(allocate_producer_ids_test, stale_epoch_is_stale_broker_epoch) {
    const int64_t epoch = self_epoch();
    ASSERT_GE(epoch, 0);
    auto resp = allocate(broker().node_id(), epoch + 1000000);
    EXPECT_ERROR(resp.error_code, error_code::stale_broker_epoch);
}

}  // namespace
}  // namespace samsa::server::test
