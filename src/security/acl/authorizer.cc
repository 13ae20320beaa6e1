#include "security/acl/authorizer.h"

#include <algorithm>

namespace samsa::security::acl {

namespace {

constexpr std::string_view any_user = "User:*";

size_t slot(resource_type t) {
    auto i = size_t(static_cast<uint8_t>(t));
    return i < 8 ? i : 0;
}

bool names_resource(const acl_binding& acl, std::string_view name) {
    switch (acl.pattern) {
        case pattern_type::literal:
            return acl.name == name || acl.name == wildcard;
        case pattern_type::prefixed:
            return name.starts_with(acl.name);
        default:
            return false;
    }
}

bool implies(operation granted, operation wanted) {
    if (granted == wanted || granted == operation::all) {
        return true;
    }
    switch (wanted) {
        case operation::describe:
            return granted == operation::read || granted == operation::write ||
                   granted == operation::delete_ || granted == operation::alter;
        case operation::describe_configs:
            return granted == operation::alter_configs;
        default:
            return false;
    }
}

// Whether the entry of `acl` applies to this requester and operation.
bool applies(const acl_binding& acl, requester who, operation op) {
    if (acl.principal != who.principal && acl.principal != any_user) {
        return false;
    }
    if (acl.host != wildcard && acl.host != who.host) {
        return false;
    }
    if (acl.perm == permission::allow) {
        return implies(acl.op, op);
    }
    return acl.op == op || acl.op == operation::all;
}

}  // namespace

void acl_cache::add(const acl_binding& b) {
    _by_type[slot(b.type)].push_back(b);
}

void acl_cache::remove(const acl_binding& b) {
    auto& v = _by_type[slot(b.type)];
    if (auto it = std::find(v.begin(), v.end(), b); it != v.end()) {
        v.erase(it);
    }
}

const std::vector<acl_binding>& acl_cache::of_type(resource_type t) const {
    return _by_type[slot(t)];
}

size_t acl_cache::size() const {
    size_t n = 0;
    for (const auto& v : _by_type) {
        n += v.size();
    }
    return n;
}

bool authorize(const authorizer_config& cfg, const acl_cache& acls, requester who, operation op,
               resource_type type, std::string_view name) {
    if (!cfg.enabled || cfg.super_users.contains(who.principal)) {
        return true;
    }
    bool has_resource_acls = false;
    bool allowed = false;
    for (const auto& acl : acls.of_type(type)) {
        if (!names_resource(acl, name)) {
            continue;
        }
        has_resource_acls = true;
        if (!applies(acl, who, op)) {
            continue;
        }
        if (acl.perm == permission::deny) {
            return false;
        }
        allowed = allowed || acl.perm == permission::allow;
    }
    return allowed || (!has_resource_acls && cfg.allow_everyone_if_no_acl_found);
}

bool authorize_any(const authorizer_config& cfg, const acl_cache& acls, requester who, operation op,
                   resource_type type) {
    if (!cfg.enabled || cfg.super_users.contains(who.principal)) {
        return true;
    }
    const auto& of_type = acls.of_type(type);
    if (of_type.empty()) {
        return cfg.allow_everyone_if_no_acl_found;
    }
    auto denied_by = [&](const acl_binding& allow) {
        return std::any_of(of_type.begin(), of_type.end(), [&](const acl_binding& d) {
            return d.perm == permission::deny && applies(d, who, op) &&
                   ((d.pattern == pattern_type::literal && d.name == wildcard) ||
                    (d.pattern == allow.pattern && d.name == allow.name) ||
                    (d.pattern == pattern_type::prefixed && allow.name.starts_with(d.name)));
        });
    };
    return std::any_of(of_type.begin(), of_type.end(), [&](const acl_binding& a) {
        return a.perm == permission::allow && applies(a, who, op) && !denied_by(a);
    });
}

}  // namespace samsa::security::acl
