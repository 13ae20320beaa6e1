#include "server/authorization.h"

#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "metadata/metadata_record_serde.h"
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
        logging::security().info(
            "event=authorization_denied principal=\"{}\" host={} operation={} resource={}:{} "
            "api={}",
            ctx.principal, ctx.client_host, acl::name_of(op), acl::name_of(type), name,
            protocol::api_name(ctx.header.api_key));
    }
    return false;
}

error_code config_refusal(const request_context& ctx, acl::operation op, int8_t resource_type,
                          std::string_view name) {
    if (resource_type == int8_t(metadata::config_resource_type::topic)) {
        return authorized(ctx, op, acl::resource_type::topic, name)
                   ? error_code::none
                   : error_code::topic_authorization_failed;
    }
    if (resource_type == int8_t(metadata::config_resource_type::group)) {
        return authorized(ctx, op, acl::resource_type::group, name)
                   ? error_code::none
                   : error_code::group_authorization_failed;
    }
    return authorized_on_cluster(ctx, op) ? error_code::none
                                          : error_code::cluster_authorization_failed;
}

int32_t authorized_operations(const request_context& ctx, acl::resource_type type,
                              std::string_view name) {
    int32_t bits = 0;
    for (auto op : acl::supported_operations(type)) {
        if (authorized(ctx, op, type, name, on_denial::quiet)) {
            bits |= int32_t(1) << int(op);
        }
    }
    return bits;
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
