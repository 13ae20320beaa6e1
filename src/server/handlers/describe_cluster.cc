#include "server/handlers/describe_cluster.h"

#include "server/authorization.h"

#include "server/quorum/visible_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

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

std::string_view endpoint_name(int8_t type) {
    return type == endpoint_controllers ? "CONTROLLER" : "BROKER";
}

// The brokers reachable on the request's listener, unfenced ones only (v0-1
// have no IncludeFencedBrokers), from the metadata image.
std::vector<describe_cluster_response::describe_cluster_broker> brokers(
    const request_context& ctx, const metadata::metadata_image& image) {
    std::vector<describe_cluster_response::describe_cluster_broker> out;
    for (const auto& [id, b] : image.brokers) {
        if (b.fenced) {
            continue;
        }
        const auto* ep = b.endpoint(ctx.listener_name);
        if (!ep) {
            continue;
        }
        auto& n = out.emplace_back();
        n.broker_id = id;
        n.host = ep->host;
        n.port = ep->port;
        n.rack = b.rack;
    }
    return out;
}

// KIP-919: the controllers, as the controller listener lists them. Kafka
// lists the controllers that registered (ControllerRegistration records);
// Samsa has no such records, so it lists the static voter set this node
// knows (controller.quorum.voters, or the one server of
// controller.quorum.bootstrap.servers), at the controller listener address
// the voters are reached on. Controllers have no rack in Kafka's answer.
std::vector<describe_cluster_response::describe_cluster_broker> controllers(
    const request_context& ctx) {
    std::vector<describe_cluster_response::describe_cluster_broker> out;
    const std::vector<config::quorum_voter>* voters = nullptr;
    if (ctx.broker->quorum) {
        voters = &ctx.broker->quorum->voters();
    } else if (ctx.broker->config) {
        voters = &ctx.broker->config->controller_quorum_voters;
    }
    if (!voters) {
        return out;
    }
    for (const auto& v : *voters) {
        auto& n = out.emplace_back();
        n.broker_id = node_id{v.id};
        n.host = v.host;
        n.port = v.port;
    }
    return out;
}

// Kafka's AuthHelper.computeDescribeClusterResponse, shared by both
// listeners: the client listener expects the brokers endpoint type and the
// controller listener the controllers one (KIP-919). An unknown or the other
// type is an error (INVALID_REQUEST in v0, which has no endpoint type field),
// and an error answer carries nothing else, not even the endpoint type asked
// for.
asio::awaitable<describe_cluster_response> handle(request_context& ctx,
                                                  describe_cluster_request& req) {
    describe_cluster_response resp;
    const bool v0 = ctx.header.api_version == 0;
    const int8_t expected = ctx.controller_listener ? endpoint_controllers : endpoint_brokers;
    if (req.endpoint_type != endpoint_brokers && req.endpoint_type != endpoint_controllers) {
        resp.error_code =
            to_wire(v0 ? error_code::invalid_request : error_code::unsupported_endpoint_type);
        resp.error_message = fmt::format("Unsupported endpoint type {}", req.endpoint_type);
        co_return resp;
    }
    if (req.endpoint_type != expected) {
        resp.error_code =
            to_wire(v0 ? error_code::invalid_request : error_code::mismatched_endpoint_type);
        resp.error_message = fmt::format(
            "The request was sent to an endpoint of type {}, but we wanted an endpoint of type {}",
            endpoint_name(expected), endpoint_name(req.endpoint_type));
        co_return resp;
    }
    node_id controller_id = no_node;
    if (expected == endpoint_controllers) {
        resp.cluster_id = ctx.broker->settings.cluster_id;
        resp.brokers = controllers(ctx);
        // The Raft leader is the active controller (-1 while none is known).
        if (ctx.broker->quorum) {
            controller_id = ctx.broker->quorum->leader().leader;
        }
    } else {
        auto image = ctx.broker->metadata.read();
        resp.cluster_id = image->cluster_id;
        resp.brokers = brokers(ctx, *image);
        controller_id = quorum::visible_controller_id(*ctx.broker, *image, ctx.listener_name);
    }
    // Kafka shows -1 for a controller id missing from the list, so that no
    // client is sent looking for a node it has no address of.
    const bool listed = std::any_of(resp.brokers.begin(), resp.brokers.end(),
                                    [&](const auto& n) { return n.broker_id == controller_id; });
    resp.controller_id = listed ? controller_id : no_node;
    resp.endpoint_type = expected;
    if (req.include_cluster_authorized_operations) {
        resp.cluster_authorized_operations =
            authorized_operations(ctx, acl::resource_type::cluster, acl::cluster_name);
    }
    co_return resp;
}

}  // namespace

api_handler describe_cluster_handler() {
    return {describe_cluster_request::api_key, 0, describe_cluster_request::max_version,
            &typed_handler<describe_cluster_request, describe_cluster_response, &handle>};
}

}  // namespace samsa::server::handlers
