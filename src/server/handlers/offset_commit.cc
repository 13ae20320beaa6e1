#include "server/handlers/offset_commit.h"

#include "server/handlers/group_handler_support.h"

#include "common/clock.h"
#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::offset_commit_request;
using protocol::offset_commit_response;

// v0 once meant offsets in ZooKeeper; with no ZooKeeper, Kafka's KRaft
// brokers store it like v1 without a generation, and so do we.
asio::awaitable<offset_commit_response> handle(request_context& ctx, offset_commit_request& req) {
    const int16_t version = ctx.header.api_version;
    const int64_t now = wall_clock_ms();
    auto image = ctx.broker->metadata.read();
    // v2-v4: a retention time replaces offsets.retention.minutes for these
    // offsets (-1: the broker's).
    std::optional<int64_t> expire;
    if (version >= 2 && version <= 4 && req.retention_time_ms != -1) {
        expire = now + req.retention_time_ms;
    }
    // READ on the group, then on each topic (KIP-11).
    const bool group_allowed = may_use_group(ctx, req.group_id);
    std::vector<coordinator::offset_commit_item> items;
    for (const auto& t : req.topics) {
        const auto* topic = image->topic(t.name);
        const bool topic_allowed = group_allowed && authorized(ctx, acl::operation::read,
                                                               acl::resource_type::topic, t.name);
        for (const auto& p : t.partitions) {
            auto& it = items.emplace_back();
            it.tp = {t.name, p.partition_index};
            if (!group_allowed) {
                it.error = error_code::group_authorization_failed;
                continue;
            }
            if (!topic_allowed) {
                it.error = error_code::topic_authorization_failed;
                continue;
            }
            if (!topic || p.partition_index < 0 ||
                size_t(p.partition_index) >= topic->partitions.size()) {
                it.error = error_code::unknown_topic_or_partition;
                continue;
            }
            it.topic_id = topic->id;
            it.value.offset = p.committed_offset;
            it.value.leader_epoch = version >= 6 ? p.committed_leader_epoch : -1;
            it.value.metadata = p.committed_metadata.value_or("");
            // v1 lets the client stamp the commit; -1 means now.
            it.value.commit_timestamp_ms =
                version == 1 && p.commit_timestamp != -1 ? p.commit_timestamp : now;
            it.value.expire_timestamp_ms = expire;
        }
    }
    if (!ctx.broker->groups || !group_allowed) {
        for (auto& it : items) {
            if (it.error == error_code::none) {
                it.error = error_code::coordinator_not_available;
            }
        }
    } else {
        const int32_t generation = version >= 1 ? req.generation_id_or_member_epoch : -1;
        co_await ctx.broker->groups->commit_offsets(req.group_id, generation, req.member_id,
                                                    req.group_instance_id, items, version);
    }
    offset_commit_response resp;
    size_t i = 0;
    for (const auto& t : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = t.name;
        for (const auto& p : t.partitions) {
            auto& pr = tr.partitions.emplace_back();
            pr.partition_index = p.partition_index;
            pr.error_code = to_wire(items[i++].error);
        }
    }
    co_return resp;
}

}  // namespace

api_handler offset_commit_handler() {
    return {offset_commit_request::api_key, 0, offset_commit_request::max_version,
            &typed_handler<offset_commit_request, offset_commit_response, &handle>};
}

}  // namespace samsa::server::handlers
