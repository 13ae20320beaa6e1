#include "server/handlers/offset_fetch.h"

#include "server/handlers/group_handler_support.h"

#include <map>

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::offset_fetch_request;
using protocol::offset_fetch_response;

using partition_list = std::optional<std::vector<storage::topic_partition>>;

// The partitions of a request's topic list (nullopt: all of the group's).
template <typename Topics>
partition_list partitions_of(const std::optional<std::vector<Topics>>& topics) {
    if (!topics) {
        return std::nullopt;
    }
    std::vector<storage::topic_partition> out;
    for (const auto& t : *topics) {
        for (int32_t p : t.partition_indexes) {
            out.push_back({t.name, p});
        }
    }
    return out;
}

asio::awaitable<coordinator::offset_fetch_result> answered(coordinator::offset_fetch_result r) {
    co_return r;
}

// Offsets of a topic the principal may not DESCRIBE: named ones answer
// TOPIC_AUTHORIZATION_FAILED, and a fetch of all the group's leaves them out.
void hide_undescribable_topics(const request_context& ctx, coordinator::offset_fetch_result& r,
                               bool named) {
    if (!authorizer_enabled(ctx) || r.error != error_code::none) {
        return;
    }
    std::map<std::string, bool> allowed;
    auto may_describe = [&](const std::string& topic) {
        auto [it, fresh] = allowed.try_emplace(topic, false);
        if (fresh) {
            it->second = authorized(ctx, acl::operation::describe, acl::resource_type::topic, topic,
                                    named ? on_denial::log : on_denial::quiet);
        }
        return it->second;
    };
    if (!named) {
        std::erase_if(r.partitions, [&](const auto& p) { return !may_describe(p.tp.topic); });
        return;
    }
    for (auto& p : r.partitions) {
        if (!may_describe(p.tp.topic)) {
            p.error = error_code::topic_authorization_failed;
            p.offset = -1;
            p.leader_epoch = -1;
            p.metadata = "";
        }
    }
}

asio::awaitable<coordinator::offset_fetch_result> fetch(
    request_context& ctx, const std::string& group_id, const partition_list& partitions,
    bool require_stable, const std::optional<std::string>& member_id = std::nullopt,
    int32_t member_epoch = -1) {
    coordinator::offset_fetch_result refused;
    refused.error = !may_use_group(ctx, group_id, acl::operation::describe)
                        ? error_code::group_authorization_failed
                        : error_code::coordinator_not_available;
    auto op = ctx.broker->groups && refused.error == error_code::coordinator_not_available
                  ? ctx.broker->groups->fetch_offsets(group_id, partitions, require_stable,
                                                      member_id, member_epoch)
                  : answered(std::move(refused));
    auto r = co_await std::move(op);
    hide_undescribable_topics(ctx, r, partitions.has_value());
    co_return r;
}

// Groups the answered partitions by topic, in the order they came.
template <typename TopicOut, typename Emit>
void by_topic(const coordinator::offset_fetch_result& r, std::vector<TopicOut>& topics, Emit emit) {
    std::map<std::string, size_t> index;
    for (const auto& p : r.partitions) {
        auto [it, added] = index.try_emplace(p.tp.topic, topics.size());
        if (added) {
            topics.emplace_back().name = p.tp.topic;
        }
        emit(topics[it->second], p);
    }
}

asio::awaitable<offset_fetch_response> handle(request_context& ctx, offset_fetch_request& req) {
    const int16_t version = ctx.header.api_version;
    offset_fetch_response resp;
    if (version >= 8) {
        for (const auto& g : req.groups) {
            const auto partitions = partitions_of(g.topics);
            // v9+: the member's id and epoch (KIP-848), checked in a
            // consumer group.
            auto r = co_await fetch(ctx, g.group_id, partitions, req.require_stable,
                                    version >= 9 ? g.member_id : std::nullopt,
                                    version >= 9 ? g.member_epoch : -1);
            auto& go = resp.groups.emplace_back();
            go.group_id = g.group_id;
            go.error_code = to_wire(r.error);
            if (r.error != error_code::none) {
                continue;
            }
            by_topic(r, go.topics, [](auto& t, const auto& p) {
                auto& po = t.partitions.emplace_back();
                po.partition_index = p.tp.partition;
                po.committed_offset = p.offset;
                po.committed_leader_epoch = p.leader_epoch;
                po.metadata = p.metadata;
                po.error_code = to_wire(p.error);
            });
        }
        co_return resp;
    }
    // v0-v1 name their partitions; null (all of the group's) is v2+.
    const auto partitions = partitions_of(req.topics);
    const bool require_stable = version >= 7 && req.require_stable;
    auto r = co_await fetch(ctx, req.group_id, partitions, require_stable);
    if (r.error != error_code::none) {
        if (version >= 2) {
            resp.error_code = to_wire(r.error);
            co_return resp;
        }
        // Before v2 there is no top-level error: each partition carries it.
        r.partitions.clear();
        for (const auto& tp : partitions.value_or(std::vector<storage::topic_partition>{})) {
            auto& p = r.partitions.emplace_back();
            p.tp = tp;
            p.error = r.error;
        }
    }
    by_topic(r, resp.topics, [](auto& t, const auto& p) {
        auto& po = t.partitions.emplace_back();
        po.partition_index = p.tp.partition;
        po.committed_offset = p.offset;
        po.committed_leader_epoch = p.leader_epoch;
        po.metadata = p.metadata;
        po.error_code = to_wire(p.error);
    });
    co_return resp;
}

}  // namespace

api_handler offset_fetch_handler() {
    return {offset_fetch_request::api_key, 0, offset_fetch_request::max_version,
            &typed_handler<offset_fetch_request, offset_fetch_response, &handle>};
}

}  // namespace samsa::server::handlers
