#pragma once
// What a handler asks the authorizer (security/acl/authorizer.h): whether the
// request's principal, from its host, may do an operation on a resource,
// under the ACLs of the broker's current metadata image. Without an
// authorizer (authorizer.class.name unset) every answer is yes. A denial is
// logged at info, as Kafka's authorizer logger does, unless the check only
// filters what a request sees (a Metadata request for every topic).
#include <string_view>

#include "security/acl/acl.h"
#include "server/request_context.h"

namespace samsa::server {

namespace acl = security::acl;

enum class on_denial : bool { log, quiet };

bool authorized(const request_context& ctx, acl::operation op, acl::resource_type type,
                std::string_view name, on_denial log = on_denial::log);

inline bool authorized_on_cluster(const request_context& ctx, acl::operation op) {
    return authorized(ctx, op, acl::resource_type::cluster, acl::cluster_name);
}

// Whether `op` is allowed on some resource of `type` (KIP-679).
bool authorized_on_any(const request_context& ctx, acl::operation op, acl::resource_type type);

inline bool authorizer_enabled(const request_context& ctx) {
    return ctx.broker && ctx.broker->authorizer.enabled;
}

}  // namespace samsa::server
