#include "security/acl/acl.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <utility>

namespace samsa::security::acl {

namespace {

template <typename E, size_t N>
using name_table = std::array<std::pair<E, std::string_view>, N>;

constexpr name_table<resource_type, 8> resource_names{{
    {resource_type::unknown, "UNKNOWN"},
    {resource_type::any, "ANY"},
    {resource_type::topic, "TOPIC"},
    {resource_type::group, "GROUP"},
    {resource_type::cluster, "CLUSTER"},
    {resource_type::transactional_id, "TRANSACTIONAL_ID"},
    {resource_type::delegation_token, "DELEGATION_TOKEN"},
    {resource_type::user, "USER"},
}};

constexpr name_table<pattern_type, 5> pattern_names{{
    {pattern_type::unknown, "UNKNOWN"},
    {pattern_type::any, "ANY"},
    {pattern_type::match, "MATCH"},
    {pattern_type::literal, "LITERAL"},
    {pattern_type::prefixed, "PREFIXED"},
}};

constexpr name_table<operation, 15> operation_names{{
    {operation::unknown, "UNKNOWN"},
    {operation::any, "ANY"},
    {operation::all, "ALL"},
    {operation::read, "READ"},
    {operation::write, "WRITE"},
    {operation::create, "CREATE"},
    {operation::delete_, "DELETE"},
    {operation::alter, "ALTER"},
    {operation::describe, "DESCRIBE"},
    {operation::cluster_action, "CLUSTER_ACTION"},
    {operation::describe_configs, "DESCRIBE_CONFIGS"},
    {operation::alter_configs, "ALTER_CONFIGS"},
    {operation::idempotent_write, "IDEMPOTENT_WRITE"},
    {operation::create_tokens, "CREATE_TOKENS"},
    {operation::describe_tokens, "DESCRIBE_TOKENS"},
}};

constexpr name_table<permission, 4> permission_names{{
    {permission::unknown, "UNKNOWN"},
    {permission::any, "ANY"},
    {permission::deny, "DENY"},
    {permission::allow, "ALLOW"},
}};

template <typename E, size_t N>
std::string_view lookup(const name_table<E, N>& t, E e) {
    for (const auto& [v, n] : t) {
        if (v == e) {
            return n;
        }
    }
    return "UNKNOWN";
}

// Case and underscores are ignored: "TRANSACTIONAL_ID", "TRANSACTIONAL_ID" and
// "transactional-id" name the same thing (Kafka's SecurityUtils.toPascalCase).
std::string fold(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c != '_' && c != '-') {
            out += char(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return out;
}

template <typename E, size_t N>
std::optional<E> parse(const name_table<E, N>& t, std::string_view s) {
    const std::string want = fold(s);
    for (const auto& [v, n] : t) {
        if (fold(n) == want && v != E::unknown) {
            return v;
        }
    }
    return std::nullopt;
}

bool pattern_matches(const acl_binding_filter& f, const acl_binding& b) {
    if (f.type != resource_type::any && f.type != b.type) {
        return false;
    }
    if (f.pattern == pattern_type::match && f.name) {
        // Every pattern that applies to the named resource: the name itself,
        // the LITERAL wildcard, and each PREFIXED pattern that starts it.
        switch (b.pattern) {
            case pattern_type::literal:
                return b.name == *f.name || b.name == wildcard;
            case pattern_type::prefixed:
                return f.name->starts_with(b.name);
            default:
                return false;
        }
    }
    if (f.pattern != pattern_type::any && f.pattern != pattern_type::match &&
        f.pattern != b.pattern) {
        return false;
    }
    return !f.name || *f.name == b.name;
}

}  // namespace

bool acl_binding_filter::matches(const acl_binding& b) const {
    if (!pattern_matches(*this, b)) {
        return false;
    }
    if (principal && *principal != b.principal) {
        return false;
    }
    if (host && *host != b.host) {
        return false;
    }
    if (op != operation::any && op != b.op) {
        return false;
    }
    return perm == permission::any || perm == b.perm;
}

bool acl_binding_filter::pattern_is_unknown() const {
    return type == resource_type::unknown || pattern == pattern_type::unknown;
}

bool acl_binding_filter::entry_is_unknown() const {
    return op == operation::unknown || perm == permission::unknown;
}

std::string_view name_of(resource_type t) {
    return lookup(resource_names, t);
}
std::string_view name_of(pattern_type p) {
    return lookup(pattern_names, p);
}
std::string_view name_of(operation o) {
    return lookup(operation_names, o);
}
std::string_view name_of(permission p) {
    return lookup(permission_names, p);
}

std::optional<resource_type> parse_resource_type(std::string_view s) {
    return parse(resource_names, s);
}
std::optional<pattern_type> parse_pattern_type(std::string_view s) {
    return parse(pattern_names, s);
}
std::optional<operation> parse_operation(std::string_view s) {
    return parse(operation_names, s);
}

const std::vector<operation>& supported_operations(resource_type t) {
    using op = operation;
    static const std::vector<op> topic{
        op::read,    op::write, op::create,           op::describe,
        op::delete_, op::alter, op::describe_configs, op::alter_configs};
    // DESCRIBE_CONFIGS and ALTER_CONFIGS: a group's configs (KIP-848).
    static const std::vector<op> group{op::read, op::describe, op::delete_, op::describe_configs,
                                       op::alter_configs};
    static const std::vector<op> cluster{
        op::create,           op::cluster_action, op::describe_configs, op::alter_configs,
        op::idempotent_write, op::alter,          op::describe};
    static const std::vector<op> transactional_id{op::describe, op::write};
    static const std::vector<op> delegation_token{op::describe};
    static const std::vector<op> user{op::create_tokens, op::describe_tokens};
    static const std::vector<op> none;
    switch (t) {
        case resource_type::topic:
            return topic;
        case resource_type::group:
            return group;
        case resource_type::cluster:
            return cluster;
        case resource_type::transactional_id:
            return transactional_id;
        case resource_type::delegation_token:
            return delegation_token;
        case resource_type::user:
            return user;
        default:
            return none;
    }
}

std::optional<std::string> invalid_new_acl(const acl_binding& b) {
    if (b.type == resource_type::unknown || b.type == resource_type::any ||
        int(b.type) > int(resource_type::user)) {
        return fmt::format("Invalid resourceType {}", int(b.type));
    }
    if (b.pattern != pattern_type::literal && b.pattern != pattern_type::prefixed) {
        return fmt::format("Invalid patternType {}", name_of(b.pattern));
    }
    if (b.op == operation::unknown || b.op == operation::any ||
        int(b.op) > int(operation::describe_tokens)) {
        return fmt::format("Invalid operation {}", int(b.op));
    }
    if (b.perm != permission::allow && b.perm != permission::deny) {
        return fmt::format("Invalid permissionType {}", int(b.perm));
    }
    if (b.type == resource_type::cluster && b.name != cluster_name) {
        return fmt::format("The only valid name for the CLUSTER resource is {}", cluster_name);
    }
    if (b.name.empty()) {
        return "Invalid empty resource name";
    }
    // A principal is "<type>:<name>" (Kafka's SecurityUtils.parseKafkaPrincipal).
    auto colon = b.principal.find(':');
    if (colon == std::string::npos || colon == 0) {
        return fmt::format(
            "Could not parse principal from `{}` (no colon is present separating the principal "
            "type from the principal name)",
            b.principal);
    }
    return std::nullopt;
}

}  // namespace samsa::security::acl
