#include "server/handlers/describe_topic_partitions.h"
#include "server/handlers/visible_leader.h"

#include <algorithm>
#include <set>

#include "common/error.h"
#include "metadata/topic_creation.h"
#include "metadata/topic_name.h"
#include "protocol/generated/describe_topic_partitions_request.h"
#include "protocol/generated/describe_topic_partitions_response.h"
#include "server/authorization.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_topic_partitions_request;
using protocol::describe_topic_partitions_response;
using topic_out = describe_topic_partitions_response::describe_topic_partitions_response_topic;

topic_out missing(const std::string& name, error_code ec) {
    topic_out t;
    t.error_code = to_wire(ec);
    t.name = name;
    return t;
}

asio::awaitable<describe_topic_partitions_response> handle(request_context& ctx,
                                                           describe_topic_partitions_request& req) {
    describe_topic_partitions_response resp;
    auto image = ctx.broker->metadata.read();
    const bool all_topics = req.topics.empty();
    const std::string from_topic = req.cursor ? req.cursor->topic_name : "";
    // Names at or after the cursor's topic, in name order.
    std::set<std::string> names;
    if (all_topics) {
        for (const auto& [name, t] : image->topics_by_name) {
            if (name >= from_topic) {
                names.insert(name);
            }
        }
    } else {
        for (const auto& t : req.topics) {
            if (t.name >= from_topic) {
                names.insert(t.name);
            }
        }
    }
    // A cursor on a topic not asked for, or on a negative partition, is an
    // invalid request: every named topic gets the error (Kafka's error
    // response for the API).
    if (req.cursor && ((!all_topics && !names.count(req.cursor->topic_name)) ||
                       req.cursor->partition_index < 0)) {
        for (const auto& t : req.topics) {
            resp.topics.push_back(missing(t.name, error_code::invalid_request));
        }
        co_return resp;
    }
    const int32_t broker_limit =
        ctx.broker->config ? ctx.broker->config->max_request_partition_size_limit : 2000;
    int32_t remaining = std::max(std::min(broker_limit, req.response_partition_limit), 1);
    std::vector<topic_out> unauthorized;
    for (const auto& name : names) {
        // Topics the principal may not describe are not disclosed when all
        // are asked for; named ones are refused without their id.
        if (!authorized(ctx, acl::operation::describe, acl::resource_type::topic, name,
                        all_topics ? on_denial::quiet : on_denial::log)) {
            if (!all_topics) {
                unauthorized.push_back(missing(name, error_code::topic_authorization_failed));
            }
            continue;
        }
        if (remaining == 0) {
            // The next response starts at this topic.
            auto& c = resp.next_cursor.emplace(decltype(resp.next_cursor)::value_type());
            c.topic_name = name;
            c.partition_index = 0;
            break;
        }
        const auto* topic = image->topic(name);
        if (!topic) {
            if (!all_topics) {
                resp.topics.push_back(missing(name, metadata::validate_topic_name(name)
                                                        ? error_code::unknown_topic_or_partition
                                                        : error_code::invalid_topic_exception));
            }
            continue;
        }
        auto& out = resp.topics.emplace_back();
        out.name = name;
        out.topic_id = topic->id;
        out.is_internal = metadata::is_internal_topic(name);
        out.topic_authorized_operations =
            authorized_operations(ctx, acl::resource_type::topic, name);
        const int32_t count = int32_t(topic->partitions.size());
        int32_t p = req.cursor && name == req.cursor->topic_name ? req.cursor->partition_index : 0;
        for (; p < count && remaining > 0; ++p, --remaining) {
            const auto& reg = topic->partitions[size_t(p)];
            auto& po = out.partitions.emplace_back();
            po.partition_index = reg.partition;
            const auto leader = visible_leader_of(*image, reg.leader, ctx.listener_name, true);
            po.leader_id = leader.id;
            po.error_code = to_wire(leader.error);
            po.leader_epoch = reg.leader_epoch;
            po.replica_nodes = reg.replicas;
            po.isr_nodes = reg.isr;
            // Eligible leader replicas (KIP-966) are not kept: none.
            po.eligible_leader_replicas = std::vector<node_id>{};
            po.last_known_elr = std::vector<node_id>{};
            po.offline_replicas = reg.offline_replicas;
        }
        if (p < count) {
            auto& c = resp.next_cursor.emplace(decltype(resp.next_cursor)::value_type());
            c.topic_name = name;
            c.partition_index = p;
            break;
        }
    }
    for (auto& t : unauthorized) {
        resp.topics.push_back(std::move(t));
    }
    co_return resp;
}

}  // namespace

api_handler describe_topic_partitions_handler() {
    return {describe_topic_partitions_request::api_key, 0,
            describe_topic_partitions_request::max_version,
            &typed_handler<describe_topic_partitions_request, describe_topic_partitions_response,
                           &handle>};
}

}  // namespace samsa::server::handlers
