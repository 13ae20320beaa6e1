#pragma once
// The admin APIs the controller serves (metadata/controller_apis.h): a broker
// hands them to the controller frontend, which runs them here when this node
// is the active controller and forwards them otherwise. A node with no
// controller frontend answers NOT_CONTROLLER for every item.
#include <asio/awaitable.hpp>
#include <map>
#include <utility>

#include "common/error.h"
#include "metadata/controller_apis.h"
#include "server/authorization.h"
#include "server/quorum/controller_frontend.h"
#include "server/request_context.h"

namespace samsa::server::handlers {

template <metadata::controller_served Request>
asio::awaitable<metadata::response_of<Request>> forward_to_controller(request_context& ctx,
                                                                      Request& req) {
    if (!ctx.broker->controller) {
        co_return metadata::answer_with(req, error_code::not_controller);
    }
    co_return co_await ctx.broker->controller->call(std::move(req));
}

// The items of `req.*items` the principal may not touch (`refusal` names an
// error for them) answer that error and are not forwarded; the rest go to the
// controller. The refused items' answers follow the controller's.
template <metadata::controller_served Request, typename Items, typename Refusal>
asio::awaitable<metadata::response_of<Request>> forward_authorized(request_context& ctx,
                                                                   Request& req,
                                                                   Items Request::*items,
                                                                   Refusal refusal) {
    Items keep;
    std::map<error_code, Request> refused;
    for (auto& item : req.*items) {
        const error_code why = refusal(std::as_const(item));
        if (why == error_code::none) {
            keep.push_back(std::move(item));
            continue;
        }
        auto [it, fresh] = refused.try_emplace(why, req);
        if (fresh) {
            (it->second.*items).clear();
        }
        (it->second.*items).push_back(std::move(item));
    }
    req.*items = std::move(keep);
    // One co_await, outside any branch (GCC 12 miscompiles co_await in one).
    // Nothing left to send (all refused, or answered by the broker itself):
    // no round trip.
    auto op = (req.*items).empty() ? ready(metadata::answer_with(req, error_code::none))
                                   : forward_to_controller(ctx, req);
    auto answer = co_await std::move(op);
    auto& entries = metadata::controller_api<Request>::entries(answer);
    for (auto& [why, part] : refused) {
        // Kafka gives this one its exception's message; the others none.
        auto refusals =
            metadata::answer_with(part, why,
                                  why == error_code::throttling_quota_exceeded
                                      ? std::optional<std::string>(std::string(error_message(why)))
                                      : std::nullopt);
        for (auto& e : metadata::controller_api<Request>::entries(refusals)) {
            entries.push_back(std::move(e));
        }
    }
    co_return answer;
}

// CreateAcls and DeleteAcls: ALTER on the cluster, and an authorizer whose
// ACLs to change; without one every item answers SECURITY_DISABLED, as
// Kafka's AclApis do.
template <metadata::controller_served Request>
asio::awaitable<metadata::response_of<Request>> forward_acl_change(request_context& ctx,
                                                                   Request& req) {
    if (!authorizer_enabled(ctx)) {
        co_return metadata::answer_with(req, error_code::security_disabled,
                                        "No Authorizer is configured.");
    }
    if (!authorized_on_cluster(ctx, acl::operation::alter)) {
        co_return metadata::answer_with(req, error_code::cluster_authorization_failed);
    }
    co_return co_await forward_to_controller(ctx, req);
}

}  // namespace samsa::server::handlers
