// SaslAuthenticate (key 36) on the in-process broker's PLAINTEXT listener,
// which has no SASL: as Kafka's KafkaApis.handleSaslAuthenticateRequest, the
// answer is ILLEGAL_SASL_STATE "SaslAuthenticate request received after
// successful authentication" with no token and no session lifetime, in every
// version. (SASL listeners are covered by tests/integration/test_sasl.py.)
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"

namespace samsa::server::test {
namespace {

using protocol::sasl_authenticate_request;
using protocol::sasl_authenticate_response;

class sasl_authenticate_test : public broker_test {};

TEST_F(sasl_authenticate_test, a_plaintext_listener_is_illegal_sasl_state) {
    const std::string token = std::string("\0alice\0alice-secret", 19);
    for (int16_t version : {0, 1, 2}) {
        SCOPED_TRACE(version);
        sasl_authenticate_request req;
        req.auth_bytes = bytes(token.begin(), token.end());
        auto resp = broker().call<sasl_authenticate_response>(req, version);
        EXPECT_ERROR(resp.error_code, error_code::illegal_sasl_state);
        EXPECT_EQ(resp.error_message.value_or(""),
                  "SaslAuthenticate request received after successful authentication");
        EXPECT_TRUE(resp.auth_bytes.empty());
        EXPECT_EQ(resp.session_lifetime_ms, 0);
    }
}

}  // namespace
}  // namespace samsa::server::test
