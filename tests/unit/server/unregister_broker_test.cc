// UnregisterBroker (key 64) against the in-process broker: a broker id that
// is not registered is BROKER_ID_NOT_REGISTERED with Kafka's message
// ("Broker ID <id> is not currently registered"), and nothing changes: the
// only broker (node 1) is still in Metadata. (Unregistering node 1 itself
// would take the shared broker away from the other tests.)
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"

namespace samsa::server::test {
namespace {

using protocol::unregister_broker_request;
using protocol::unregister_broker_response;

class unregister_broker_test : public broker_test {};

TEST_F(unregister_broker_test, an_unknown_broker_id_is_not_registered) {
    for (int32_t id : {2, 1000, -1}) {
        SCOPED_TRACE(id);
        unregister_broker_request req;
        req.broker_id = node_id{id};
        auto resp = broker().call<unregister_broker_response>(req, 0);
        EXPECT_ERROR(resp.error_code, error_code::broker_id_not_registered);
        EXPECT_EQ(resp.error_message.value_or(""),
                  "Broker ID " + std::to_string(id) + " is not currently registered");
    }
    auto md = broker().metadata({});
    ASSERT_EQ(md.brokers.size(), 1u);
    EXPECT_EQ(md.brokers[0].node_id.value(), broker().node_id());
}

}  // namespace
}  // namespace samsa::server::test
