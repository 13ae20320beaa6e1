#pragma once
// One request as a handler sees it: the decoded header, the undecoded body
// (a view into the frame, which lives until the response has been built), the
// listener it came in on, and the broker's services.
#include <memory>
#include <optional>
#include <string>

#include "common/busy_time.h"
#include "common/bytes.h"
#include "server/broker_context.h"

namespace samsa::server {

struct request_header {
    int16_t api_key = 0;
    int16_t api_version = 0;
    int32_t correlation_id = 0;
    std::optional<std::string> client_id;
    int16_t header_version = 1;
};

struct request_context {
    request_header header;
    bytes_view body;
    uint32_t request_size = 0;          // the whole frame, header included
    std::shared_ptr<const void> frame;  // keeps `body` (and decoded records views) alive
    std::string listener_name;          // e.g. "PLAINTEXT"
    bool controller_listener = false;   // one of controller.listener.names
    std::string peer;                   // "host:port", for logs
    // Who asks (the authorizer's requester, and the user of client quotas;
    // set while an authorizer is configured or a client quota is set): "User:<name>" after SASL,
    // the client certificate's "User:<subject>", else "User:ANONYMOUS"; and the client's address.
    std::string principal = "User:ANONYMOUS";
    std::string client_host;
    broker_context* broker = nullptr;
    // The connection's SASL exchange, on SASL listeners (null elsewhere).
    struct sasl_session* sasl = nullptr;
    // Produce: the connection's append order and this request's place in it
    // (server/produce_sequencer.h); null elsewhere.
    class produce_sequencer* produce_order = nullptr;
    uint64_t produce_ticket = 0;
    // The time this request has kept the broker busy, while a
    // request_percentage quota is set (common/busy_time.h); null otherwise.
    std::shared_ptr<busy_account> busy;
};

}  // namespace samsa::server
