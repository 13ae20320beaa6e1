#include "server/handlers/describe_cluster.h"

#include "server/quorum/visible_controller.h"

#include <fmt/format.h>

#include "common/error.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_cluster_request;
using protocol::describe_cluster_response;

// KIP-919 endpoint types.
constexpr int8_t endpoint_brokers = 1;
constexpr int8_t endpoint_controllers = 2;

// Kafka's AclOperation codes of what may be done to the cluster; with no
// authorizer every one of them is allowed.
int32_t all_cluster_operations() {
    const int ops[] = {5 /* CREATE */,
                       7 /* ALTER */,
                       8 /* DESCRIBE */,
                       9 /* CLUSTER_ACTION */,
                       10 /* DESCRIBE_CONFIGS */,
                       11 /* ALTER_CONFIGS */,
                       12 /* IDEMPOTENT_WRITE */};
    int32_t bits = 0;
    for (int op : ops) {
        bits |= int32_t(1) << op;
    }
    return bits;
}

asio::awaitable<describe_cluster_response> handle(request_context& ctx,
                                                  describe_cluster_request& req) {
    describe_cluster_response resp;
    resp.endpoint_type = req.endpoint_type;
    if (req.endpoint_type == endpoint_controllers) {
        resp.error_code = to_wire(error_code::mismatched_endpoint_type);
        resp.error_message =
            "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of "
            "type CONTROLLER";
        co_return resp;
    }
    if (req.endpoint_type != endpoint_brokers) {
        resp.error_code = to_wire(error_code::unsupported_endpoint_type);
        resp.error_message = fmt::format("Unsupported endpoint type {}", req.endpoint_type);
        co_return resp;
    }
    auto image = ctx.broker->metadata.read();
    resp.cluster_id = image->cluster_id;
    resp.controller_id = quorum::visible_controller_id(*ctx.broker, *image);
    for (const auto& [id, b] : image->brokers) {
        if (b.fenced) {
            continue;
        }
        const auto* ep = b.endpoint(ctx.listener_name);
        if (!ep) {
            continue;
        }
        auto& out = resp.brokers.emplace_back();
        out.broker_id = id;
        out.host = ep->host;
        out.port = ep->port;
        out.rack = b.rack;
    }
    if (req.include_cluster_authorized_operations) {
        resp.cluster_authorized_operations = all_cluster_operations();
    }
    co_return resp;
}

}  // namespace

api_handler describe_cluster_handler() {
    return {describe_cluster_request::api_key, 0, describe_cluster_request::max_version,
            &typed_handler<describe_cluster_request, describe_cluster_response, &handle>};
}

}  // namespace samsa::server::handlers
