#include "server/handlers/create_partitions.h"

#include "common/error.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_partitions_request;
using protocol::create_partitions_response;

asio::awaitable<create_partitions_response> handle(request_context& ctx,
                                                   create_partitions_request& req) {
    if (!ctx.broker->controller) {
        co_return metadata::answer_with(req, error_code::not_controller);
    }
    co_return co_await ctx.broker->controller->call(std::move(req));
}

}  // namespace

api_handler create_partitions_handler() {
    return {create_partitions_request::api_key, 0, create_partitions_request::max_version,
            &typed_handler<create_partitions_request, create_partitions_response, &handle>};
}

}  // namespace samsa::server::handlers
