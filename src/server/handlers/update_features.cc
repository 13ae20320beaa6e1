#include "server/handlers/update_features.h"

#include "common/error.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::update_features_request;
using protocol::update_features_response;

constexpr int8_t safe_downgrade = 2;

asio::awaitable<update_features_response> handle(request_context& ctx,
                                                 update_features_request& req) {
    const int16_t version = ctx.header.api_version;
    if (!authorized_on_cluster(ctx, acl::operation::alter)) {
        co_return metadata::answer_with(req, error_code::cluster_authorization_failed);
    }
    if (version == 0) {
        // v0 says allow_downgrade; the controller reads the upgrade type, as
        // Kafka's UpdateFeaturesRequest maps it.
        for (auto& u : req.feature_updates) {
            u.upgrade_type = u.allow_downgrade ? safe_downgrade : int8_t(1);
        }
    }
    auto resp = co_await forward_to_controller(ctx, req);
    if (version >= 2) {
        resp.results.clear();  // v2 answers with the top-level error only
    }
    co_return resp;
}

}  // namespace

api_handler update_features_handler() {
    return {update_features_request::api_key, update_features_request::min_version,
            update_features_request::max_version,
            &typed_handler<update_features_request, update_features_response, &handle>};
}

}  // namespace samsa::server::handlers
