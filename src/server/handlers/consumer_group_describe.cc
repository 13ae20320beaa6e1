#include "server/handlers/consumer_group_describe.h"

#include "server/handlers/group_handler_support.h"

#include <climits>

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::consumer_group_describe_request;
using protocol::consumer_group_describe_response;
using described = consumer_group_describe_response::described_group;

// Topic ids with their names, as the metadata knows them now.
consumer_group_describe_response::assignment_data assignment_of(
    const coordinator::topic_assignment& a, const metadata::metadata_image& image) {
    consumer_group_describe_response::assignment_data out;
    for (const auto& [id, parts] : a) {
        if (parts.empty()) {
            continue;
        }
        auto& t = out.topic_partitions.emplace_back();
        t.topic_id = id;
        const auto* topic = image.topic(id);
        t.topic_name = topic ? topic->name : "";
        t.partitions.assign(parts.begin(), parts.end());
    }
    return out;
}

described wire_of(coordinator::described_consumer_group g, const metadata::metadata_image& image) {
    described out;
    out.error_code = to_wire(g.error);
    out.error_message = std::move(g.error_message);
    out.group_id = std::move(g.group_id);
    out.group_state = std::move(g.group_state);
    out.group_epoch = g.group_epoch;
    out.assignment_epoch = g.assignment_epoch;
    out.assignor_name = std::move(g.assignor_name);
    for (auto& m : g.members) {
        auto& om = out.members.emplace_back();
        om.member_id = std::move(m.member_id);
        om.instance_id = std::move(m.instance_id);
        om.rack_id = std::move(m.rack_id);
        om.member_epoch = m.member_epoch;
        om.client_id = std::move(m.client_id);
        om.client_host = std::move(m.client_host);
        om.subscribed_topic_names = std::move(m.subscribed_topic_names);
        om.subscribed_topic_regex = std::move(m.subscribed_topic_regex);
        om.assignment = assignment_of(m.assignment, image);
        om.target_assignment = assignment_of(m.target_assignment, image);
    }
    return out;
}

asio::awaitable<consumer_group_describe_response> handle(request_context& ctx,
                                                         consumer_group_describe_request& req) {
    consumer_group_describe_response resp;
    for (const auto& id : req.group_ids) {
        described g;
        if (!may_use_group(ctx, id, acl::operation::describe)) {
            g.group_id = id;
            g.error_code = to_wire(error_code::group_authorization_failed);
        } else if (!ctx.broker->groups) {
            g.group_id = id;
            g.error_code = to_wire(error_code::coordinator_not_available);
        } else {
            auto r = co_await ctx.broker->groups->consumer_group_describe(id);
            g = wire_of(std::move(r), *ctx.broker->metadata.read());
        }
        g.authorized_operations = req.include_authorized_operations && g.error_code == 0
                                      ? authorized_operations(ctx, acl::resource_type::group, id)
                                      : INT32_MIN;
        resp.groups.push_back(std::move(g));
    }
    co_return resp;
}

}  // namespace

api_handler consumer_group_describe_handler() {
    return {
        consumer_group_describe_request::api_key, 0, consumer_group_describe_request::max_version,
        &typed_handler<consumer_group_describe_request, consumer_group_describe_response, &handle>};
}

}  // namespace samsa::server::handlers
