#include "metadata/acl_changes.h"

#include <set>

#include "common/error.h"
#include "protocol/generated/remove_access_control_entry_record.h"

namespace samsa::metadata {

namespace acl = security::acl;

acl::acl_binding acl_of(const protocol::access_control_entry_record& r) {
    return {acl::resource_type(r.resource_type),
            r.resource_name,
            acl::pattern_type(r.pattern_type),
            r.principal,
            r.host,
            acl::operation(r.operation),
            acl::permission(r.permission_type)};
}

protocol::access_control_entry_record record_of(const uuid& id, const acl::acl_binding& b) {
    protocol::access_control_entry_record r;
    r.id = id;
    r.resource_type = int8_t(b.type);
    r.resource_name = b.name;
    r.pattern_type = int8_t(b.pattern);
    r.principal = b.principal;
    r.host = b.host;
    r.operation = int8_t(b.op);
    r.permission_type = int8_t(b.perm);
    return r;
}

acl::acl_binding acl_of(const protocol::create_acls_request::acl_creation& c) {
    return {acl::resource_type(c.resource_type),
            c.resource_name,
            acl::pattern_type(c.resource_pattern_type),
            c.principal,
            c.host,
            acl::operation(c.operation),
            acl::permission(c.permission_type)};
}

controller_plan<protocol::create_acls_response> plan_create_acls(
    const controller_state& state, const protocol::create_acls_request& request) {
    controller_plan<protocol::create_acls_response> plan;
    std::set<acl::acl_binding> existing;
    for (const auto& [id, b] : state.image.acls) {
        existing.insert(b);
    }
    std::set<uuid> taken;
    for (const auto& c : request.creations) {
        auto& result = plan.response.results.emplace_back();
        result.error_message = std::nullopt;
        const auto binding = acl_of(c);
        if (auto why = acl::invalid_new_acl(binding)) {
            result.error_code = to_wire(error_code::invalid_request);
            result.error_message = std::move(*why);
            continue;
        }
        if (!existing.insert(binding).second) {
            continue;  // already there: success, nothing to write
        }
        uuid id;
        do {
            id = uuid::random();
        } while (state.image.acls.contains(id) || !taken.insert(id).second);
        plan.records.emplace_back(record_of(id, binding));
    }
    return plan;
}

controller_plan<protocol::delete_acls_response> plan_delete_acls(
    const controller_state& state, const protocol::delete_acls_request& request) {
    controller_plan<protocol::delete_acls_response> plan;
    std::set<uuid> removed;
    for (const auto& f : request.filters) {
        auto& result = plan.response.filter_results.emplace_back();
        result.error_message = std::nullopt;
        const auto filter = filter_of(f);
        if (filter.pattern_is_unknown() || filter.entry_is_unknown()) {
            result.error_code = to_wire(error_code::invalid_request);
            result.error_message =
                filter.pattern_is_unknown() ? "Unknown patternFilter." : "Unknown entryFilter.";
            continue;
        }
        for (const auto& [id, b] : state.image.acls) {
            if (!filter.matches(b)) {
                continue;
            }
            auto& m = result.matching_acls.emplace_back();
            m.error_message = std::nullopt;
            m.resource_type = int8_t(b.type);
            m.resource_name = b.name;
            m.pattern_type = int8_t(b.pattern);
            m.principal = b.principal;
            m.host = b.host;
            m.operation = int8_t(b.op);
            m.permission_type = int8_t(b.perm);
            if (removed.insert(id).second) {
                protocol::remove_access_control_entry_record r;
                r.id = id;
                plan.records.emplace_back(r);
            }
        }
    }
    return plan;
}

}  // namespace samsa::metadata
