#include "server/authorization.h"

#include <spdlog/spdlog.h>

#include "protocol/generated/api_table.h"

namespace samsa::server {

namespace {

acl::requester requester_of(const request_context& ctx) {
    return {ctx.principal, ctx.client_host};
}

}  // namespace

bool authorized(const request_context& ctx, acl::operation op, acl::resource_type type,
                std::string_view name, on_denial log) {
    if (!authorizer_enabled(ctx)) {
        return true;
    }
    auto image = ctx.broker->metadata.read();
    if (acl::authorize(ctx.broker->authorizer, image->acl_cache, requester_of(ctx), op, type,
                       name)) {
        return true;
    }
    if (log == on_denial::log) {
        spdlog::info(
            "event=authorization_denied principal=\"{}\" host={} operation={} resource={}:{} "
            "api={}",
            ctx.principal, ctx.client_host, acl::name_of(op), acl::name_of(type), name,
            protocol::api_name(ctx.header.api_key));
    }
    return false;
}

bool authorized_on_any(const request_context& ctx, acl::operation op, acl::resource_type type) {
    if (!authorizer_enabled(ctx)) {
        return true;
    }
    auto image = ctx.broker->metadata.read();
    return acl::authorize_any(ctx.broker->authorizer, image->acl_cache, requester_of(ctx), op,
                              type);
}

}  // namespace samsa::server
