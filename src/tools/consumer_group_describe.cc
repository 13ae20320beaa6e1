#include "tools/consumer_group_describe.h"

#include <algorithm>
#include <cstdio>

#include "net/blocking_call.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"

namespace samsa::tools {

namespace {

constexpr const char* k_client_id = "samsa-groups";

std::vector<topic_partition> partitions_of(
    const protocol::consumer_group_describe_response::assignment_data& a) {
    std::vector<topic_partition> out;
    for (const auto& t : a.topic_partitions) {
        for (int32_t p : t.partitions) {
            out.emplace_back(t.topic_name, p);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

result<std::optional<group_description>> describe_consumer_group(const client_options& o,
                                                                 const std::string& group) {
    auto to = bootstrap_target(o, k_client_id);
    if (!to) {
        // A client config the raw call cannot honour: the admin client's
        // DescribeGroups still can (classic groups).
        std::fprintf(stderr, "Note: %s; consumer-protocol groups are not described.\n",
                     to.err().message.c_str());
        return std::optional<group_description>{};
    }
    protocol::find_coordinator_request fc;
    fc.key_type = 0;  // a group
    fc.coordinator_keys = {group};
    auto found = net::call_blocking<protocol::find_coordinator_response>(*to, fc, 4);
    if (!found) {
        return found.err();
    }
    if (found->coordinators.empty() || found->coordinators[0].error_code != 0) {
        const int16_t code = found->coordinators.empty() ? -1 : found->coordinators[0].error_code;
        return tool_error("finding the coordinator of group '" + group +
                          "' failed: " + std::string(error_name(error_code(code))));
    }
    const auto& c = found->coordinators[0];
    net::blocking_target at{c.host, uint16_t(c.port), k_client_id, to->timeout, to->security};
    protocol::consumer_group_describe_request req;
    req.group_ids = {group};
    auto answer = net::call_blocking<protocol::consumer_group_describe_response>(at, req, 0);
    if (!answer) {
        if (answer.err().code == error_code::unsupported_version) {
            return std::optional<group_description>{};
        }
        return answer.err();
    }
    if (answer->groups.empty()) {
        return tool_error("ConsumerGroupDescribe answered no group");
    }
    const auto& g = answer->groups[0];
    if (g.error_code == to_wire(error_code::group_id_not_found)) {
        return std::optional<group_description>{};
    }
    if (g.error_code != 0) {
        return tool_error(
            "describing group '" + group + "' failed: " +
            g.error_message.value_or(std::string(error_name(error_code(g.error_code)))));
    }
    group_description out;
    out.group_id = group;
    out.type = "Consumer";
    out.state = g.group_state;
    out.assignor = g.assignor_name;
    out.coordinator = {c.node_id.value(), c.host, c.port};
    out.group_epoch = g.group_epoch;
    out.target_assignment_epoch = g.assignment_epoch;
    for (const auto& m : g.members) {
        group_member gm;
        gm.consumer_id = m.member_id;
        gm.group_instance_id = m.instance_id.value_or("");
        gm.client_id = m.client_id;
        gm.host = m.client_host;
        gm.assignment = partitions_of(m.assignment);
        gm.target_assignment = partitions_of(m.target_assignment);
        gm.current_epoch = m.member_epoch;
        // The target's epoch is the group's assignment epoch.
        gm.target_epoch = g.assignment_epoch;
        out.members.push_back(std::move(gm));
    }
    return std::optional<group_description>(std::move(out));
}

}  // namespace samsa::tools
