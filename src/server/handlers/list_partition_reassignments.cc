#include "server/handlers/list_partition_reassignments.h"

#include "common/error.h"
#include "metadata/partition_reassignment.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"
#include "server/authorization.h"

namespace samsa::server::handlers {

namespace {

using protocol::list_partition_reassignments_request;
using protocol::list_partition_reassignments_response;

asio::awaitable<list_partition_reassignments_response> handle(
    request_context& ctx, list_partition_reassignments_request& req) {
    if (!authorized_on_cluster(ctx, acl::operation::describe)) {
        list_partition_reassignments_response refused;
        refused.error_code = to_wire(error_code::cluster_authorization_failed);
        refused.error_message = std::nullopt;
        co_return refused;
    }
    co_return metadata::list_partition_reassignments(*ctx.broker->metadata.read(), req);
}

}  // namespace

api_handler list_partition_reassignments_handler() {
    return {list_partition_reassignments_request::api_key, 0,
            list_partition_reassignments_request::max_version,
            &typed_handler<list_partition_reassignments_request,
                           list_partition_reassignments_response, &handle>};
}

}  // namespace samsa::server::handlers
