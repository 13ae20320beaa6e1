#include "server/handlers/describe_acls.h"

#include <map>
#include <tuple>

#include "metadata/acl_changes.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"
#include "server/authorization.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_acls_request;
using protocol::describe_acls_response;

describe_acls_response failed(error_code code, std::string message) {
    describe_acls_response resp;
    resp.error_code = to_wire(code);
    resp.error_message = std::move(message);
    return resp;
}

asio::awaitable<describe_acls_response> handle(request_context& ctx, describe_acls_request& req) {
    if (!authorized_on_cluster(ctx, acl::operation::describe)) {
        co_return failed(error_code::cluster_authorization_failed, "Cluster authorization failed.");
    }
    if (!authorizer_enabled(ctx)) {
        co_return failed(error_code::security_disabled,
                         "No Authorizer is configured on the broker");
    }
    const acl::acl_binding_filter filter = metadata::filter_of(req);
    if (filter.pattern_is_unknown() || filter.entry_is_unknown()) {
        co_return failed(error_code::invalid_request, "Filter contain UNKNOWN elements");
    }
    const auto image = ctx.broker->metadata.read();
    using pattern_key = std::tuple<acl::resource_type, std::string, acl::pattern_type>;
    std::map<pattern_key, std::vector<const acl::acl_binding*>> by_pattern;
    for (const auto& [id, b] : image->acls) {
        if (filter.matches(b)) {
            by_pattern[{b.type, b.name, b.pattern}].push_back(&b);
        }
    }
    describe_acls_response resp;
    resp.error_code = 0;
    resp.error_message = std::nullopt;
    for (const auto& [key, bindings] : by_pattern) {
        auto& r = resp.resources.emplace_back();
        r.resource_type = int8_t(std::get<0>(key));
        r.resource_name = std::get<1>(key);
        r.pattern_type = int8_t(std::get<2>(key));
        for (const auto* b : bindings) {
            auto& a = r.acls.emplace_back();
            a.principal = b->principal;
            a.host = b->host;
            a.operation = int8_t(b->op);
            a.permission_type = int8_t(b->perm);
        }
    }
    co_return resp;
}

}  // namespace

api_handler describe_acls_handler() {
    return {describe_acls_request::api_key, describe_acls_request::min_version,
            describe_acls_request::max_version,
            &typed_handler<describe_acls_request, describe_acls_response, &handle>};
}

}  // namespace samsa::server::handlers
