#include "server/handlers/api_versions.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "metadata/metadata_version.h"
#include "protocol/generated/api_table.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "server/handler_registry.h"

namespace samsa::server::handlers {

namespace {

using protocol::api_versions_request;
using protocol::api_versions_response;

// The oldest version served; the newest is what the generated code parses.
constexpr int16_t k_min_version = 0;

void fill_api_keys(const request_context& ctx, api_versions_response& resp) {
    const auto listener =
        ctx.controller_listener ? listener_kind::controller : listener_kind::client;
    // Without "consumer" in group.coordinator.rebalance.protocols, the
    // KIP-848 APIs are not offered (as Kafka hides them).
    const bool consumer_protocol =
        !ctx.broker->groups || ctx.broker->groups->config().consumer_protocol;
    for (const auto& h : ctx.broker->handlers->all(listener)) {
        if (!consumer_protocol && (h.key == protocol::consumer_group_heartbeat_request::api_key ||
                                   h.key == protocol::consumer_group_describe_request::api_key)) {
            continue;
        }
        auto& k = resp.api_keys.emplace_back();
        k.api_key = h.key;
        k.min_version = h.min_version;
        k.max_version = h.max_version;
    }
}

// Kafka's rule for client_software_name / client_software_version (KIP-511).
bool valid_software_field(const std::string& s) {
    if (s.empty()) {
        return false;
    }
    auto alnum = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    };
    if (!alnum(s.front()) || !alnum(s.back())) {
        return false;
    }
    for (char c : s) {
        if (!alnum(c) && c != '-' && c != '.') {
            return false;
        }
    }
    return true;
}

// KIP-584: the features this broker supports and those the cluster has
// finalized (FeatureLevelRecords in the metadata log), at the image's offset.
void fill_features(const request_context& ctx, api_versions_response& resp) {
    auto& mv = resp.supported_features.emplace_back();
    mv.name = metadata::metadata_version_feature;
    mv.min_version = metadata::min_supported_metadata_version;
    mv.max_version = metadata::max_supported_metadata_version;
    const auto image = ctx.broker->metadata.read();
    resp.finalized_features_epoch = image->offset;
    for (const auto& [name, level] : image->features) {
        auto& f = resp.finalized_features.emplace_back();
        f.name = name;
        f.min_version_level = level;
        f.max_version_level = level;
    }
}

asio::awaitable<api_versions_response> handle(request_context& ctx, api_versions_request& req) {
    api_versions_response resp;
    if (ctx.header.api_version >= 3 && (!valid_software_field(req.client_software_name) ||
                                        !valid_software_field(req.client_software_version))) {
        resp.error_code = to_wire(error_code::invalid_request);
        co_return resp;
    }
    fill_api_keys(ctx, resp);
    if (ctx.header.api_version >= 3) {
        fill_features(ctx, resp);
    }
    co_return resp;
}

}  // namespace

api_handler api_versions_handler() {
    return {api_versions_request::api_key, k_min_version, api_versions_request::max_version,
            &typed_handler<api_versions_request, api_versions_response, &handle>};
}

handler_result api_versions_unsupported(request_context&) {
    // KIP-511: only ApiVersions' own range, as Kafka's
    // ApiVersionsRequest.getErrorResponse builds it. The client learns the
    // version to retry with; the full table comes with the retry, whose
    // answer is the one it keeps.
    api_versions_response resp;
    resp.error_code = to_wire(error_code::unsupported_version);
    auto& k = resp.api_keys.emplace_back();
    k.api_key = api_versions_request::api_key;
    k.min_version = k_min_version;
    k.max_version = api_versions_request::max_version;
    handler_result out;
    resp.encode(out.body, 0);
    return out;
}

}  // namespace samsa::server::handlers
