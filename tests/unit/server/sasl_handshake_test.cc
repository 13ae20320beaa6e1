// SaslHandshake (key 17) on the in-process broker's PLAINTEXT listener, which
// has no SASL: as Kafka's KafkaApis.handleSaslHandshakeRequest, the answer is
// ILLEGAL_SASL_STATE with no mechanisms, in v0 and v1 and whatever mechanism
// is asked for. (SASL listeners are covered by tests/integration/test_sasl.py.)
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"

namespace samsa::server::test {
namespace {

using protocol::sasl_handshake_request;
using protocol::sasl_handshake_response;

class sasl_handshake_test : public broker_test {};

TEST_F(sasl_handshake_test, a_plaintext_listener_is_illegal_sasl_state) {
    for (int16_t version : {0, 1}) {
        for (const char* mechanism : {"PLAIN", "SCRAM-SHA-256", "GSSAPI", ""}) {
            SCOPED_TRACE(std::to_string(version) + " " + mechanism);
            sasl_handshake_request req;
            req.mechanism = mechanism;
            auto resp = broker().call<sasl_handshake_response>(req, version);
            EXPECT_ERROR(resp.error_code, error_code::illegal_sasl_state);
            EXPECT_TRUE(resp.mechanisms.empty());
        }
    }
}

TEST_F(sasl_handshake_test, the_controller_listener_is_illegal_sasl_state_too) {
    sasl_handshake_request req;
    req.mechanism = "PLAIN";
    auto resp = broker().call<sasl_handshake_response>(req, 1, listener_kind::controller);
    EXPECT_ERROR(resp.error_code, error_code::illegal_sasl_state);
    EXPECT_TRUE(resp.mechanisms.empty());
}

}  // namespace
}  // namespace samsa::server::test
