#include "server/handlers/elect_leaders.h"

#include "server/authorization.h"

#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::elect_leaders_request;
using protocol::elect_leaders_response;

// An answer for the whole request: the top-level error (v1+) and the same on
// every partition named, as Kafka's KafkaApis answers; v0 has only the latter.
elect_leaders_response failed(const elect_leaders_request& req, error_code ec) {
    elect_leaders_response resp;
    resp.error_code = to_wire(ec);
    if (req.topic_partitions) {
        for (const auto& t : *req.topic_partitions) {
            auto& r = resp.replica_election_results.emplace_back();
            r.topic = t.topic;
            for (int32_t p : t.partitions) {
                auto& pr = r.partition_result.emplace_back();
                pr.partition_id = p;
                pr.error_code = to_wire(ec);
                pr.error_message = std::nullopt;
            }
        }
    }
    return resp;
}

asio::awaitable<elect_leaders_response> handle(request_context& ctx, elect_leaders_request& req) {
    const int16_t version = ctx.header.api_version;
    if (!authorized_on_cluster(ctx, acl::operation::alter)) {
        co_return failed(req, error_code::cluster_authorization_failed);
    }
    if (!ctx.broker->controller) {
        co_return failed(req, error_code::not_controller);
    }
    auto answer = co_await ctx.broker->controller->elect_leaders(req, version);
    if (!answer) {
        co_return failed(req, error_code::not_controller);
    }
    co_return std::move(*answer);
}

}  // namespace

api_handler elect_leaders_handler() {
    return {elect_leaders_request::api_key, 0, elect_leaders_request::max_version,
            &typed_handler<elect_leaders_request, elect_leaders_response, &handle>};
}

}  // namespace samsa::server::handlers
