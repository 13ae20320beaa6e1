#include "tools/group_configs.h"

#include <algorithm>
#include <cstdio>

#include "common/config/config_set.h"
#include "common/error.h"
#include "net/blocking_call.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "tools/group_types_list.h"
#include "tools/incremental_alter_configs.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

constexpr const char* client_id = "samsa-configs";

using described_config =
    protocol::describe_configs_response::describe_configs_result::describe_configs_resource_result;

// The group's configs, sorted by name; only those it sets unless `all`.
result<std::vector<described_config>> group_configs(const net::blocking_target& to,
                                                    const std::string& group, bool all) {
    protocol::describe_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = config_resource_group;
    r.resource_name = group;
    r.configuration_keys = std::nullopt;
    req.include_synonyms = true;
    auto resp = net::call_blocking<protocol::describe_configs_response>(to, req, 4);
    if (!resp) {
        return resp.err();
    }
    if (resp->results.size() != 1) {
        return tool_error("no configs returned for group " + group);
    }
    const auto& res = resp->results.front();
    if (res.error_code != 0) {
        return error(error_code(res.error_code), message_of(res.error_code, res.error_message));
    }
    std::vector<described_config> out;
    for (const auto& c : res.configs) {
        if (all || c.config_source == int8_t(config::config_source::group_config)) {
            out.push_back(c);
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

std::string shown(const std::optional<std::string>& v) {
    return v ? *v : "null";
}

}  // namespace

int describe_group_configs(const client_options& opts, const std::optional<std::string>& group,
                           bool all) {
    auto to = bootstrap_target(opts, client_id);
    if (!to) {
        return fail(to.err());
    }
    std::vector<std::string> groups;
    if (group) {
        groups.push_back(*group);
    } else {
        auto listed = list_groups_with_types(opts, {}, {});
        if (!listed) {
            return fail(listed.err());
        }
        for (const auto& g : *listed) {
            groups.push_back(g.group_id);
        }
    }
    for (const auto& g : groups) {
        auto configs = group_configs(*to, g, all);
        if (!configs) {
            return fail(configs.err());
        }
        std::string out =
            std::string(all ? "All" : "Dynamic") + " configs for group " + g + " are:\n";
        for (const auto& c : *configs) {
            std::string synonyms;
            for (const auto& s : c.synonyms) {
                synonyms += (synonyms.empty() ? "" : ", ") +
                            std::string(config::source_name(config::config_source(s.source))) +
                            ":" + s.name + "=" + shown(s.value);
            }
            out += "  " + c.name + "=" + shown(c.value) +
                   " sensitive=" + (c.is_sensitive ? "true" : "false") + " synonyms={" + synonyms +
                   "}\n";
        }
        std::fputs(out.c_str(), stdout);
    }
    return 0;
}

int alter_group_configs(const client_options& opts, const std::string& group,
                        const property_list& sets, const std::vector<std::string>& deletes) {
    auto to = bootstrap_target(opts, client_id);
    if (!to) {
        return fail(to.err());
    }
    auto current = group_configs(*to, group, false);
    if (!current) {
        return fail(current.err());
    }
    std::string missing;
    for (const auto& d : deletes) {
        const bool set = std::any_of(current->begin(), current->end(),
                                     [&](const auto& c) { return c.name == d; });
        if (!set) {
            missing += (missing.empty() ? "" : ",") + d;
        }
    }
    if (!missing.empty()) {
        return fail("Invalid config(s): " + missing);
    }
    if (auto st = incremental_alter_config(*to, config_resource_group, group,
                                           config_ops_of(sets, deletes));
        !st) {
        return fail(st.err());
    }
    std::printf("Completed updating config for group %s.\n", group.c_str());
    return 0;
}

}  // namespace samsa::tools
