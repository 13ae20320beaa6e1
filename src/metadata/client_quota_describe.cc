#include "metadata/client_quota_describe.h"

#include <set>

#include "common/client_quotas.h"
#include "common/result.h"

namespace samsa::metadata {

namespace {

enum match_type : int8_t { exact = 0, default_name = 1, specified = 2 };

struct filter {
    std::map<std::string, std::optional<std::string>> names;  // exact or default
    std::set<std::string> types;                              // any name
};

result<filter> parse_filter(const protocol::describe_client_quotas_request& request) {
    filter f;
    for (const auto& c : request.components) {
        if (c.entity_type.empty()) {
            return error(error_code::invalid_request, "Invalid empty entity type.");
        }
        if (f.names.contains(c.entity_type) || f.types.contains(c.entity_type)) {
            return error(
                error_code::invalid_request,
                "Entity type " + c.entity_type + " cannot appear more than once in the filter.");
        }
        if (!quota::is_entity_type(c.entity_type)) {
            return error(error_code::unsupported_version,
                         "Unsupported entity type " + c.entity_type);
        }
        switch (c.match_type) {
            case exact:
                if (!c.match) {
                    return error(error_code::invalid_request,
                                 "Request specified MATCH_TYPE_EXACT, but set match string to "
                                 "null.");
                }
                f.names[c.entity_type] = c.match;
                break;
            case default_name:
                if (c.match) {
                    return error(error_code::invalid_request,
                                 "Request specified MATCH_TYPE_DEFAULT, but also specified a "
                                 "match string.");
                }
                f.names[c.entity_type] = std::nullopt;
                break;
            case specified:
                if (c.match) {
                    return error(error_code::invalid_request,
                                 "Request specified MATCH_TYPE_SPECIFIED, but also specified a "
                                 "match string.");
                }
                f.types.insert(c.entity_type);
                break;
            default:
                return error(error_code::invalid_request,
                             "Unknown match type " + std::to_string(int(c.match_type)));
        }
    }
    auto named = [&](std::string_view t) {
        return f.names.contains(std::string(t)) || f.types.contains(std::string(t));
    };
    if (named(quota::entity_ip) && (named(quota::entity_user) || named(quota::entity_client_id))) {
        return error(error_code::invalid_request,
                     "Invalid entity filter component combination. IP filter component should "
                     "not be used with user or clientId filter component.");
    }
    return f;
}

bool matches(const filter& f, const client_quota_entity& entity, bool strict) {
    for (const auto& [type, name] : f.names) {
        auto it = entity.find(type);
        if (it == entity.end() || it->second != name) {
            return false;
        }
    }
    for (const auto& type : f.types) {
        if (!entity.contains(type)) {
            return false;
        }
    }
    return !strict || entity.size() == f.names.size() + f.types.size();
}

}  // namespace

protocol::describe_client_quotas_response describe_client_quotas(
    const metadata_image& image, const protocol::describe_client_quotas_request& request) {
    protocol::describe_client_quotas_response out;
    out.error_message = std::nullopt;
    auto f = parse_filter(request);
    if (!f) {
        out.error_code = to_wire(f.err().code);
        out.error_message = f.err().message;
        out.entries = std::nullopt;
        return out;
    }
    // No components and strict: Kafka answers nothing.
    const bool none = request.components.empty() && request.strict;
    auto& entries = out.entries.emplace();
    for (const auto& [entity, values] : image.client_quotas) {
        if (none || !matches(*f, entity, request.strict)) {
            continue;
        }
        auto& e = entries.emplace_back();
        for (const auto& [type, name] : entity) {
            auto& d = e.entity.emplace_back();
            d.entity_type = type;
            d.entity_name = name;
        }
        for (const auto& [key, value] : values) {
            auto& v = e.values.emplace_back();
            v.key = key;
            v.value = value;
        }
    }
    return out;
}

}  // namespace samsa::metadata
