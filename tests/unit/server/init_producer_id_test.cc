// InitProducerId (key 22) against the in-process broker: idempotent
// producers get fresh ids at epoch 0; an empty transactional id and a
// producer id without an epoch (or the reverse) are INVALID_REQUEST, as in
// Kafka's KafkaApis and TransactionCoordinator.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"

namespace samsa::server::test {
namespace {

using protocol::init_producer_id_request;
using protocol::init_producer_id_response;

class init_producer_id_test : public broker_test {
  protected:
    init_producer_id_response init(int64_t producer_id = -1, int16_t epoch = -1,
                                   std::optional<std::string> transactional_id = std::nullopt) {
        init_producer_id_request req;
        req.transactional_id = std::move(transactional_id);
        req.transaction_timeout_ms = 60000;
        req.producer_id = producer_id;
        req.producer_epoch = epoch;
        init_producer_id_response resp;
        // The first ids come once the controller has handed out a block.
        broker_fixture::wait_until([&] {
            resp = broker().call<init_producer_id_response>(req, 4);
            return resp.error_code != int16_t(error_code::coordinator_load_in_progress) &&
                   resp.error_code != int16_t(error_code::coordinator_not_available);
        });
        return resp;
    }
};

TEST_F(init_producer_id_test, idempotent_producer_gets_fresh_ids) {
    auto a = init();
    EXPECT_ERROR(a.error_code, error_code::none);
    EXPECT_GE(a.producer_id, 0);
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
    EXPECT_GE(resp.producer_id, 0);
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

}  // namespace
}  // namespace samsa::server::test
