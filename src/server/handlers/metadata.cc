#include "server/handlers/metadata.h"

#include "common/error.h"
#include "metadata/topic_name.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::metadata_request;
using protocol::metadata_response;
using topic_response = metadata_response::metadata_response_topic;

void add_topic(const metadata::topic_image& t, const metadata::metadata_image& image,
               metadata_response& resp) {
    auto& out = resp.topics.emplace_back();
    out.name = t.name;
    out.topic_id = t.id;
    out.is_internal = metadata::is_internal_topic(t.name);
    for (const auto& p : t.partitions) {
        auto& po = out.partitions.emplace_back();
        po.partition_index = p.partition;
        po.leader_id = p.leader;
        po.leader_epoch = p.leader_epoch;
        po.replica_nodes = p.replicas;
        po.isr_nodes = p.isr;
        po.offline_replicas = p.offline_replicas;
        if (p.leader < 0) {
            po.error_code = to_wire(error_code::leader_not_available);
        }
    }
}

void add_missing_topic(const std::optional<std::string>& name, const uuid& id,
                       metadata_response& resp) {
    auto& out = resp.topics.emplace_back();
    out.name = name;
    out.topic_id = id;
    if (!name) {
        out.error_code = to_wire(error_code::unknown_topic_id);
        return;
    }
    auto valid = metadata::validate_topic_name(*name);
    // Topic creation on demand (auto.create.topics.enable) needs a controller
    // that can create topics; until the broker has one, the topic is unknown.
    out.error_code = to_wire(valid ? error_code::unknown_topic_or_partition
                                   : error_code::invalid_topic_exception);
}

asio::awaitable<metadata_response> handle(request_context& ctx, metadata_request& req) {
    const int16_t version = ctx.header.api_version;
    auto image = ctx.broker->metadata.read();
    metadata_response resp;
    resp.cluster_id = image->cluster_id;
    resp.controller_id = image->controller_id;
    for (const auto& [id, b] : image->brokers) {
        if (b.fenced) {
            continue;
        }
        const auto* ep = b.endpoint(ctx.listener_name);
        if (!ep) {
            continue;
        }
        auto& bo = resp.brokers.emplace_back();
        bo.node_id = id;
        bo.host = ep->host;
        bo.port = ep->port;
        bo.rack = b.rack;
    }

    // v0: an empty list means every topic; v1+: null means every topic.
    bool all_topics = !req.topics || (version == 0 && req.topics->empty());
    if (all_topics) {
        for (const auto& [name, t] : image->topics_by_name) {
            add_topic(*t, *image, resp);
        }
        co_return resp;
    }
    for (const auto& rt : *req.topics) {
        const metadata::topic_image* t = nullptr;
        if (rt.name) {
            t = image->topic(*rt.name);
        } else if (!rt.topic_id.is_zero()) {
            t = image->topic(rt.topic_id);
        }
        if (t) {
            add_topic(*t, *image, resp);
        } else {
            add_missing_topic(rt.name, rt.topic_id, resp);
        }
    }
    co_return resp;
}

}  // namespace

api_handler metadata_handler() {
    return {metadata_request::api_key, 0, metadata_request::max_version,
            &typed_handler<metadata_request, metadata_response, &handle>};
}

}  // namespace samsa::server::handlers
