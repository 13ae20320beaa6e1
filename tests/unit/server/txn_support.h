#pragma once
// What the transaction API tests share (tests/unit/server/*_txn*_test.cc):
// a transactional producer's start against the in-process broker.
#include "broker_fixture.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"

namespace samsa::server::test {

// The coordinator's answers a client retries while it gets ready.
inline bool txn_coordinator_busy(int16_t code) {
    auto ec = error_code(code);
    return ec == error_code::coordinator_load_in_progress ||
           ec == error_code::coordinator_not_available || ec == error_code::not_coordinator ||
           ec == error_code::concurrent_transactions;
}

// FindCoordinator for `id` (creates __transaction_state on first use), then
// InitProducerId until the coordinator has loaded its partition.
inline protocol::init_producer_id_response init_txn(broker_fixture& b, const std::string& id) {
    protocol::find_coordinator_request fc;
    fc.key_type = 1;
    fc.coordinator_keys = {id};
    protocol::init_producer_id_request req;
    req.transactional_id = id;
    req.transaction_timeout_ms = 60000;
    req.producer_id = producer_id{-1};
    req.producer_epoch = -1;
    protocol::init_producer_id_response resp;
    broker_fixture::wait_until([&] {
        b.call<protocol::find_coordinator_response>(fc, 4);
        resp = b.call<protocol::init_producer_id_response>(req, 4);
        return !txn_coordinator_busy(resp.error_code);
    });
    EXPECT_ERROR(resp.error_code, error_code::none);
    return resp;
}

}  // namespace samsa::server::test
