// InitProducerId (key 22) against the in-process broker: idempotent
// producers get fresh ids at epoch 0; an empty transactional id and a
// producer id without an epoch (or the reverse) are INVALID_REQUEST, as in
// Kafka's KafkaApis and TransactionCoordinator. A transactional id gets an id
// at epoch 0 and the same id at the next epoch on each call; a timeout above
// transaction.max.timeout.ms is INVALID_TRANSACTION_TIMEOUT.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"

namespace samsa::server::test {
namespace {

using protocol::find_coordinator_request;
using protocol::find_coordinator_response;
using protocol::init_producer_id_request;
using protocol::init_producer_id_response;

class init_producer_id_test : public broker_test {
  protected:
    init_producer_id_response init(int64_t pid = -1, int16_t epoch = -1,
                                   std::optional<std::string> transactional_id = std::nullopt,
                                   int32_t transaction_timeout_ms = 60000, int16_t version = 4) {
        init_producer_id_request req;
        req.transactional_id = std::move(transactional_id);
        req.transaction_timeout_ms = transaction_timeout_ms;
        req.producer_id = producer_id{pid};
        req.producer_epoch = epoch;
        init_producer_id_response resp;
        // The first ids come once the controller has handed out a block. A
        // transactional id needs its coordinator: FindCoordinator first, as
        // clients do (it creates __transaction_state), until it has loaded.
        const bool transactional = req.transactional_id && !req.transactional_id->empty();
        broker_fixture::wait_until([&] {
            if (transactional) {
                find_txn_coordinator(*req.transactional_id);
            }
            resp = broker().call<init_producer_id_response>(req, version);
            return resp.error_code != int16_t(error_code::coordinator_load_in_progress) &&
                   resp.error_code != int16_t(error_code::coordinator_not_available) &&
                   resp.error_code != int16_t(error_code::not_coordinator);
        });
        return resp;
    }
    void find_txn_coordinator(const std::string& id) {
        find_coordinator_request fc;
        fc.key_type = 1;
        fc.coordinator_keys = {id};
        broker().call<find_coordinator_response>(fc, 4);
    }
};

TEST_F(init_producer_id_test, idempotent_producer_gets_fresh_ids) {
    auto a = init();
    EXPECT_ERROR(a.error_code, error_code::none);
    EXPECT_GE(a.producer_id.value(), 0);
    EXPECT_EQ(a.producer_epoch, 0);
    auto b = init();
    EXPECT_ERROR(b.error_code, error_code::none);
    EXPECT_NE(b.producer_id, a.producer_id);
}

TEST_F(init_producer_id_test, v0_idempotent_producer) {
    init_producer_id_request req;
    req.transactional_id = std::nullopt;
    auto resp = broker().call<init_producer_id_response>(req, 0);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_GE(resp.producer_id.value(), 0);
}

TEST_F(init_producer_id_test, empty_transactional_id_is_invalid_request) {
    EXPECT_ERROR(init(-1, -1, "").error_code, error_code::invalid_request);
}

TEST_F(init_producer_id_test, producer_id_without_epoch_is_invalid_request) {
    EXPECT_ERROR(init(1234, -1).error_code, error_code::invalid_request);
}

TEST_F(init_producer_id_test, epoch_without_producer_id_is_invalid_request) {
    EXPECT_ERROR(init(-1, 3).error_code, error_code::invalid_request);
}

TEST_F(init_producer_id_test, transactional_id_gets_an_id_at_epoch_0_then_the_next_epoch) {
    const auto id = unique_name("ipid-txn");
    auto a = init(-1, -1, id);
    EXPECT_ERROR(a.error_code, error_code::none);
    EXPECT_GE(a.producer_id.value(), 0);
    EXPECT_EQ(a.producer_epoch, 0);
    auto b = init(-1, -1, id);
    EXPECT_ERROR(b.error_code, error_code::none);
    EXPECT_EQ(b.producer_id, a.producer_id);
    EXPECT_EQ(b.producer_epoch, 1);
}

TEST_F(init_producer_id_test, transactional_ids_get_distinct_producer_ids) {
    auto a = init(-1, -1, unique_name("ipid-txn-a"));
    auto b = init(-1, -1, unique_name("ipid-txn-b"));
    EXPECT_ERROR(a.error_code, error_code::none);
    EXPECT_ERROR(b.error_code, error_code::none);
    EXPECT_NE(a.producer_id, b.producer_id);
}

// KIP-360 (v3+): the producer's own id and epoch bump it; another's are fenced.
TEST_F(init_producer_id_test, transactional_id_with_its_current_id_and_epoch_bumps_it) {
    const auto id = unique_name("ipid-txn-kip360");
    auto a = init(-1, -1, id);
    ASSERT_ERROR(a.error_code, error_code::none);
    auto b = init(a.producer_id.value(), a.producer_epoch, id);
    EXPECT_ERROR(b.error_code, error_code::none);
    EXPECT_EQ(b.producer_id, a.producer_id);
    EXPECT_EQ(b.producer_epoch, a.producer_epoch + 1);
    EXPECT_ERROR(init(a.producer_id.value() + 1000, 0, id).error_code, error_code::producer_fenced);
    // KIP-588: PRODUCER_FENCED came with v4; a v3 client hears INVALID_PRODUCER_EPOCH.
    EXPECT_ERROR(init(a.producer_id.value() + 1000, 0, id, 60000, 3).error_code,
                 error_code::invalid_producer_epoch);
}

TEST_F(init_producer_id_test,
       timeout_above_transaction_max_timeout_is_invalid_transaction_timeout) {
    // transaction.max.timeout.ms is Kafka's default, 900000.
    const auto id = unique_name("ipid-txn-timeout");
    auto r = init(-1, -1, id, 900001);
    EXPECT_ERROR(r.error_code, error_code::invalid_transaction_timeout);
    EXPECT_EQ(r.producer_id, no_producer_id);
    EXPECT_EQ(r.producer_epoch, -1);
    EXPECT_ERROR(init(-1, -1, id, 0).error_code, error_code::invalid_transaction_timeout);
    EXPECT_ERROR(init(-1, -1, id, 900000).error_code, error_code::none);
}

}  // namespace
}  // namespace samsa::server::test
