#include "tools/group_types_list.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "net/blocking_call.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"

namespace samsa::tools {

namespace {

// "consumer" -> "Consumer", as Kafka's GroupType.toString().
std::string type_name(std::string t) {
    if (!t.empty()) {
        t[0] = char(std::toupper(uint8_t(t[0])));
    }
    return t;
}

}  // namespace

result<std::vector<typed_group_listing>> list_groups_with_types(
    const client_options& o, const std::set<std::string>& types,
    const std::set<std::string>& states) {
    auto brokers = broker_targets(o, "samsa-groups");
    if (!brokers) {
        return brokers.err();
    }
    protocol::list_groups_request req;
    req.types_filter.assign(types.begin(), types.end());
    for (const auto& s : states) {
        req.states_filter.push_back(s);
    }
    std::map<std::string, typed_group_listing> found;
    for (const auto& [id, to] : *brokers) {
        auto resp = net::call_blocking<protocol::list_groups_response>(to, req, 5);
        if (!resp) {
            return resp.err();
        }
        if (resp->error_code != 0) {
            return tool_error("listing groups at broker " + std::to_string(id) +
                              " failed: " + std::string(error_name(error_code(resp->error_code))));
        }
        for (const auto& g : resp->groups) {
            found[g.group_id] = {g.group_id, type_name(g.group_type), g.group_state};
        }
    }
    std::vector<typed_group_listing> out;
    for (auto& [id, g] : found) {
        out.push_back(std::move(g));
    }
    return out;
}

}  // namespace samsa::tools
