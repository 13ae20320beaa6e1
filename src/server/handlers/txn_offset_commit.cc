#include "server/handlers/txn_offset_commit.h"

#include "common/clock.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/txn_offset_commit_request.h"
#include "protocol/generated/txn_offset_commit_response.h"
#include "server/handlers/txn_handler_support.h"

namespace samsa::server::handlers {

namespace {

using protocol::txn_offset_commit_request;
using protocol::txn_offset_commit_response;

constexpr int16_t max_served_version = 4;
constexpr int16_t first_fenced_version = 2;  // KIP-588

asio::awaitable<txn_offset_commit_response> handle(request_context& ctx,
                                                   txn_offset_commit_request& req) {
    const int16_t version = ctx.header.api_version;
    const int64_t now = wall_clock_ms();
    auto image = ctx.broker->metadata.read();
    // WRITE on the transactional id, READ on the group, READ on each topic.
    const error_code refused =
        !may_write_transaction(ctx, req.transactional_id)
            ? error_code::transactional_id_authorization_failed
        : !authorized(ctx, acl::operation::read, acl::resource_type::group, req.group_id)
            ? error_code::group_authorization_failed
            : error_code::none;
    std::vector<coordinator::offset_commit_item> items;
    for (const auto& t : req.topics) {
        const auto* topic = image->topic(t.name);
        const bool topic_allowed =
            refused == error_code::none &&
            authorized(ctx, acl::operation::read, acl::resource_type::topic, t.name);
        for (const auto& p : t.partitions) {
            auto& it = items.emplace_back();
            it.tp = {t.name, p.partition_index};
            if (refused != error_code::none || !topic_allowed) {
                it.error =
                    refused != error_code::none ? refused : error_code::topic_authorization_failed;
                continue;
            }
            if (!topic || p.partition_index < 0 ||
                size_t(p.partition_index) >= topic->partitions.size()) {
                it.error = error_code::unknown_topic_or_partition;
                continue;
            }
            it.topic_id = topic->id;
            it.value.offset = p.committed_offset;
            it.value.leader_epoch = version >= 2 ? p.committed_leader_epoch : -1;
            it.value.metadata = p.committed_metadata.value_or("");
            it.value.commit_timestamp_ms = now;
        }
    }
    if (!ctx.broker->groups || refused != error_code::none) {
        for (auto& it : items) {
            if (it.error == error_code::none) {
                it.error = error_code::coordinator_not_available;
            }
        }
    } else {
        // Before v3 the commit carries no member: it is checked as a commit
        // from outside group management.
        const int32_t generation = version >= 3 ? req.generation_id : -1;
        const std::string member = version >= 3 ? req.member_id : "";
        co_await ctx.broker->groups->commit_offsets(
            req.group_id, generation, member, version >= 3 ? req.group_instance_id : std::nullopt,
            items, version, coordinator::txn_producer{req.producer_id.value(), req.producer_epoch});
    }
    txn_offset_commit_response resp;
    size_t i = 0;
    for (const auto& t : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = t.name;
        for (const auto& p : t.partitions) {
            auto& pr = tr.partitions.emplace_back();
            pr.partition_index = p.partition_index;
            pr.error_code =
                to_wire(txn_error_for_version(items[i++].error, version, first_fenced_version));
        }
    }
    co_return resp;
}

}  // namespace

api_handler txn_offset_commit_handler() {
    return {txn_offset_commit_request::api_key, 0, max_served_version,
            &typed_handler<txn_offset_commit_request, txn_offset_commit_response, &handle>};
}

}  // namespace samsa::server::handlers
