#include "server/handlers/metadata.h"
#include "server/handlers/visible_leader.h"

#include "server/quorum/visible_controller.h"

#include <set>

#include <algorithm>
#include <map>

#include "cluster/replica_manager.h"
#include "common/error.h"
#include "metadata/topic_creation.h"
#include "metadata/topic_name.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "server/authorization.h"
#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::metadata_request;
using protocol::metadata_response;
using topic_response = metadata_response::metadata_response_topic;

void add_topic(const metadata::topic_image& t, const metadata::metadata_image& image,
               const std::string& listener_name, int16_t version, metadata_response& resp) {
    auto& out = resp.topics.emplace_back();
    out.name = t.name;
    out.topic_id = t.id;
    out.is_internal = metadata::is_internal_topic(t.name);
    for (const auto& p : t.partitions) {
        auto& po = out.partitions.emplace_back();
        po.partition_index = p.partition;
        const auto leader = visible_leader_of(image, p.leader, listener_name, version >= 6);
        po.leader_id = leader.id;
        po.error_code = to_wire(leader.error);
        po.leader_epoch = p.leader_epoch;
        po.replica_nodes = p.replicas;
        po.isr_nodes = p.isr;
        po.offline_replicas = p.offline_replicas;
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
    out.error_code = to_wire(valid ? error_code::unknown_topic_or_partition
                                   : error_code::invalid_topic_exception);
}

// Kafka creates a missing topic named in a Metadata request when the broker
// allows it (auto.create.topics.enable) and the client asks for it
// (allow_auto_topic_creation, v4+; always before).
bool may_auto_create(const request_context& ctx, const metadata_request& req,
                     const std::string& name) {
    if (!ctx.broker->controller || !ctx.broker->config ||
        !ctx.broker->config->auto_create_topics_enable) {
        return false;
    }
    if (ctx.header.api_version >= 4 && !req.allow_auto_topic_creation) {
        return false;
    }
    return name != metadata::cluster_metadata_topic && metadata::validate_topic_name(name);
}

// Creates the topics and answers each as Kafka does: LEADER_NOT_AVAILABLE for
// one just created (or created meanwhile by someone else), so the client asks
// again and then sees it; the creation's error (e.g. INVALID_REPLICATION_FACTOR)
// otherwise.
asio::awaitable<void> auto_create(request_context& ctx, const std::vector<std::string>& names,
                                  metadata_response& resp) {
    protocol::create_topics_request creq;
    for (const auto& n : names) {
        creq.topics.push_back(metadata::auto_created_topic(n, *ctx.broker->config));
    }
    auto created = co_await ctx.broker->controller->call(std::move(creq));
    std::map<std::string, int16_t> outcome;
    for (const auto& r : created.topics) {
        auto code = error_code(r.error_code);
        outcome[r.name] =
            to_wire(code == error_code::none || code == error_code::topic_already_exists
                        ? error_code::leader_not_available
                        : code);
    }
    for (auto& t : resp.topics) {
        if (t.name && outcome.count(*t.name)) {
            t.error_code = outcome[*t.name];
        }
    }
}

// KIP-112: a partition whose replica here sits in a log dir that an I/O
// error took offline (a full disk) reports KAFKA_STORAGE_ERROR, with this
// broker among its offline replicas, until leadership has moved elsewhere.
void mark_unwritable_replicas(const request_context& ctx, metadata_response& resp) {
    if (!ctx.broker->replicas) {
        return;
    }
    auto unwritable = ctx.broker->replicas->logs().unwritable_partitions();
    if (unwritable.empty()) {
        return;
    }
    std::set<storage::topic_partition> offline(unwritable.begin(), unwritable.end());
    const node_id self{ctx.broker->settings.node_id};
    for (auto& t : resp.topics) {
        if (!t.name) {
            continue;
        }
        for (auto& p : t.partitions) {
            if (!offline.count({*t.name, p.partition_index})) {
                continue;
            }
            p.error_code = to_wire(error_code::kafka_storage_error);
            if (!contains(p.offline_replicas, self)) {
                p.offline_replicas.push_back(self);
            }
        }
    }
}

asio::awaitable<metadata_response> answer(request_context& ctx, metadata_request& req) {
    const int16_t version = ctx.header.api_version;
    auto image = ctx.broker->metadata.read();
    metadata_response resp;
    resp.cluster_id = image->cluster_id;
    resp.controller_id = quorum::visible_controller_id(*ctx.broker, *image, ctx.listener_name);
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
    // A principal sees the topics it may DESCRIBE; every topic it names and may
    // not answers TOPIC_AUTHORIZATION_FAILED (KIP-11).
    auto may_describe = [&](const std::string& name, on_denial log) {
        return authorized(ctx, acl::operation::describe, acl::resource_type::topic, name, log);
    };
    if (all_topics) {
        for (const auto& [name, t] : image->topics_by_name) {
            if (may_describe(name, on_denial::quiet)) {
                add_topic(*t, *image, ctx.listener_name, ctx.header.api_version, resp);
            }
        }
        co_return resp;
    }
    // Before v12 a topic may only be named: Kafka refuses ids and null names
    // with INVALID_REQUEST for every topic (an empty name where none was given).
    if (version < 12) {
        bool by_id = false;
        for (const auto& rt : *req.topics) {
            by_id |= !rt.name || !rt.topic_id.is_zero();
        }
        if (by_id) {
            for (const auto& rt : *req.topics) {
                auto& out = resp.topics.emplace_back();
                out.name = rt.name.value_or("");
                out.error_code = to_wire(error_code::invalid_request);
            }
            co_return resp;
        }
    }
    std::vector<std::string> to_create;
    std::set<std::string> seen_names;
    std::set<uuid> seen_ids;
    for (const auto& rt : *req.topics) {
        // Requested topics are a set: each is answered once.
        if (rt.name ? !seen_names.insert(*rt.name).second : !seen_ids.insert(rt.topic_id).second) {
            continue;
        }
        const metadata::topic_image* t = nullptr;
        if (rt.name) {
            t = image->topic(*rt.name);
        } else if (!rt.topic_id.is_zero()) {
            t = image->topic(rt.topic_id);
        }
        const std::optional<std::string> name = t ? std::optional(t->name) : rt.name;
        if (name && !may_describe(*name, on_denial::log)) {
            auto& out = resp.topics.emplace_back();
            out.name = rt.name;
            out.topic_id = rt.topic_id;
            out.error_code = to_wire(error_code::topic_authorization_failed);
        } else if (t) {
            add_topic(*t, *image, ctx.listener_name, ctx.header.api_version, resp);
        } else {
            add_missing_topic(rt.name, rt.topic_id, resp);
            if (rt.name && may_auto_create(ctx, req, *rt.name)) {
                // Auto-creation needs CREATE on the cluster or the topic.
                if (authorized(ctx, acl::operation::create, acl::resource_type::cluster,
                               acl::cluster_name, on_denial::quiet) ||
                    authorized(ctx, acl::operation::create, acl::resource_type::topic, *rt.name)) {
                    to_create.push_back(*rt.name);
                } else {
                    resp.topics.back().error_code = to_wire(error_code::topic_authorization_failed);
                }
            }
        }
    }
    if (!to_create.empty()) {
        co_await auto_create(ctx, to_create, resp);
    }
    co_return resp;
}

// KIP-430: what the principal may do, where the request asks (v8+; the
// cluster's only before v11).
void add_authorized_operations(const request_context& ctx, const metadata_request& req,
                               metadata_response& resp) {
    const int16_t version = ctx.header.api_version;
    if (version >= 8 && req.include_topic_authorized_operations) {
        for (auto& t : resp.topics) {
            if (t.error_code == 0 && t.name) {
                t.topic_authorized_operations =
                    authorized_operations(ctx, acl::resource_type::topic, *t.name);
            }
        }
    }
    if (version >= 8 && version <= 10 && req.include_cluster_authorized_operations) {
        resp.cluster_authorized_operations =
            authorized_operations(ctx, acl::resource_type::cluster, acl::cluster_name);
    }
}

asio::awaitable<metadata_response> handle(request_context& ctx, metadata_request& req) {
    metadata_response resp = co_await answer(ctx, req);
    mark_unwritable_replicas(ctx, resp);
    add_authorized_operations(ctx, req, resp);
    co_return resp;
}

}  // namespace

api_handler metadata_handler() {
    return {metadata_request::api_key, 0, metadata_request::max_version,
            &typed_handler<metadata_request, metadata_response, &handle>};
}

}  // namespace samsa::server::handlers
