#include "server/handlers/alter_partition_reassignments.h"

#include "common/error.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::alter_partition_reassignments_request;
using protocol::alter_partition_reassignments_response;

asio::awaitable<alter_partition_reassignments_response> handle(
    request_context& ctx, alter_partition_reassignments_request& req) {
    const bool allowed = authorized_on_cluster(ctx, acl::operation::alter);
    // One co_await, outside any branch (GCC 12 miscompiles co_await in one).
    auto op = allowed ? forward_to_controller(ctx, req)
                      : ready(metadata::answer_with(req, error_code::cluster_authorization_failed));
    auto answer = co_await std::move(op);
    answer.error_message = std::nullopt;
    if (!allowed) {
        // As Kafka's error response: the request's code at the top too.
        answer.error_code = to_wire(error_code::cluster_authorization_failed);
    }
    co_return answer;
}

}  // namespace

api_handler alter_partition_reassignments_handler() {
    return {alter_partition_reassignments_request::api_key, 0,
            alter_partition_reassignments_request::max_version,
            &typed_handler<alter_partition_reassignments_request,
                           alter_partition_reassignments_response, &handle>};
}

}  // namespace samsa::server::handlers
