#pragma once
// What a handler asks the authorizer (security/acl/authorizer.h): whether the
// request's principal, from its host, may do an operation on a resource,
// under the ACLs of the broker's current metadata image. Without an
// authorizer (authorizer.class.name unset) every answer is yes. A denial is
// logged at info, as Kafka's authorizer logger does, unless the check only
// filters what a request sees (a Metadata request for every topic).
#include <asio/awaitable.hpp>
#include <string_view>

#include "common/error.h"
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

// KIP-430: the bit field (1 << operation id) of the operations the principal
// may do on the resource, of those its type has; all of them without an
// authorizer, as Kafka reports.
int32_t authorized_operations(const request_context& ctx, acl::resource_type type,
                              std::string_view name);

// Whether `op` is allowed on some resource of `type` (KIP-679).
bool authorized_on_any(const request_context& ctx, acl::operation op, acl::resource_type type);

// Configs (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs): a topic's
// need `op` on the topic (else TOPIC_AUTHORIZATION_FAILED), a group's on the
// group (else GROUP_AUTHORIZATION_FAILED), a broker's or a broker logger's on
// the cluster (else CLUSTER_AUTHORIZATION_FAILED).
error_code config_refusal(const request_context& ctx, acl::operation op, int8_t resource_type,
                          std::string_view name);

inline auto config_alteration_refusal(const request_context& ctx) {
    return [&ctx](const auto& resource) {
        return config_refusal(ctx, acl::operation::alter_configs, resource.resource_type,
                              resource.resource_name);
    };
}

inline bool authorizer_enabled(const request_context& ctx) {
    return ctx.broker && ctx.broker->authorizer.enabled;
}

// An answer already known, as an awaitable (so that a handler awaits once,
// outside any branch: GCC 12 miscompiles a co_await inside one).
template <typename T>
asio::awaitable<T> ready(T value) {
    co_return value;
}

// The requests brokers and controllers send each other need CLUSTER_ACTION
// on the cluster; a refused one answers CLUSTER_AUTHORIZATION_FAILED, as
// Kafka's ControllerApis do.
template <typename Request, typename Response,
          asio::awaitable<Response> (*Fn)(request_context&, Request&)>
asio::awaitable<Response> with_cluster_action(request_context& ctx, Request& req) {
    Response refused;
    refused.error_code = to_wire(error_code::cluster_authorization_failed);
    auto op = authorized_on_cluster(ctx, acl::operation::cluster_action)
                  ? Fn(ctx, req)
                  : ready(std::move(refused));
    co_return co_await std::move(op);
}

}  // namespace samsa::server
