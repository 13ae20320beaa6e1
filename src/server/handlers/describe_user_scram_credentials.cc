#include "server/handlers/describe_user_scram_credentials.h"

#include "server/authorization.h"

#include <map>

#include "common/error.h"
#include "protocol/generated/describe_user_scram_credentials_request.h"
#include "protocol/generated/describe_user_scram_credentials_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_user_scram_credentials_request;
using protocol::describe_user_scram_credentials_response;

asio::awaitable<describe_user_scram_credentials_response> handle(
    request_context& ctx, describe_user_scram_credentials_request& req) {
    if (!authorized_on_cluster(ctx, acl::operation::describe)) {
        describe_user_scram_credentials_response refused;
        refused.error_code = to_wire(error_code::cluster_authorization_failed);
        refused.error_message = std::nullopt;
        co_return refused;
    }
    const auto image = ctx.broker->metadata.read();
    // User -> named more than once.
    std::map<std::string, bool> users;
    if (!req.users || req.users->empty()) {
        for (const auto& [user, _] : image->scram_credentials) {
            users.emplace(user, false);
        }
    } else {
        for (const auto& u : *req.users) {
            auto [it, fresh] = users.emplace(u.name, false);
            it->second = !fresh;
        }
    }
    describe_user_scram_credentials_response resp;
    resp.error_code = 0;
    resp.error_message = std::nullopt;
    for (const auto& [user, duplicate] : users) {
        auto& r = resp.results.emplace_back();
        r.user = user;
        r.error_message = std::nullopt;
        auto held = image->scram_credentials.find(user);
        if (duplicate) {
            r.error_code = to_wire(error_code::duplicate_resource);
            r.error_message =
                "Cannot describe SCRAM credentials for the same user twice in a single request: " +
                user;
        } else if (held == image->scram_credentials.end()) {
            r.error_code = to_wire(error_code::resource_not_found);
            r.error_message = "Attempt to describe a user credential that does not exist: " + user;
        } else {
            for (const auto& [mechanism, c] : held->second) {
                auto& info = r.credential_infos.emplace_back();
                info.mechanism = int8_t(mechanism);
                info.iterations = c.iterations;
            }
        }
    }
    co_return resp;
}

}  // namespace

api_handler describe_user_scram_credentials_handler() {
    return {describe_user_scram_credentials_request::api_key,
            describe_user_scram_credentials_request::min_version,
            describe_user_scram_credentials_request::max_version,
            &typed_handler<describe_user_scram_credentials_request,
                           describe_user_scram_credentials_response, &handle>};
}

}  // namespace samsa::server::handlers
