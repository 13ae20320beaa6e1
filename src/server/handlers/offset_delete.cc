#include "server/handlers/offset_delete.h"

#include "server/handlers/group_handler_support.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/offset_delete_request.h"
#include "protocol/generated/offset_delete_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::offset_delete_request;
using protocol::offset_delete_response;

asio::awaitable<offset_delete_response> handle(request_context& ctx, offset_delete_request& req) {
    auto image = ctx.broker->metadata.read();
    offset_delete_response resp;
    // DELETE on the group, READ on each topic (KIP-11).
    if (!may_use_group(ctx, req.group_id, acl::operation::delete_)) {
        resp.error_code = to_wire(error_code::group_authorization_failed);
        co_return resp;
    }
    std::vector<coordinator::offset_delete_item> items;
    for (const auto& t : req.topics) {
        const auto* topic = image->topic(t.name);
        const bool topic_allowed =
            authorized(ctx, acl::operation::read, acl::resource_type::topic, t.name);
        for (const auto& p : t.partitions) {
            auto& it = items.emplace_back();
            it.tp = {t.name, p.partition_index};
            if (!topic_allowed) {
                it.error = error_code::topic_authorization_failed;
            } else if (!topic || p.partition_index < 0 ||
                       size_t(p.partition_index) >= topic->partitions.size()) {
                it.error = error_code::unknown_topic_or_partition;
            }
        }
    }
    error_code group_error = error_code::coordinator_not_available;
    if (ctx.broker->groups) {
        group_error = co_await ctx.broker->groups->delete_offsets(req.group_id, items);
    }
    if (group_error != error_code::none) {
        // A group-level failure answers with no partitions, as Kafka does.
        resp.error_code = to_wire(group_error);
        co_return resp;
    }
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

api_handler offset_delete_handler() {
    return {offset_delete_request::api_key, 0, offset_delete_request::max_version,
            &typed_handler<offset_delete_request, offset_delete_response, &handle>};
}

}  // namespace samsa::server::handlers
