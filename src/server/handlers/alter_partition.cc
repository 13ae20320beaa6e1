#include "server/handlers/alter_partition.h"

#include "server/authorization.h"

#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::alter_partition_request;
using protocol::alter_partition_response;

asio::awaitable<alter_partition_response> handle(request_context& ctx,
                                                 alter_partition_request& req) {
    auto* channel = ctx.broker->controller;
    if (!channel || !channel->local()) {
        alter_partition_response resp;
        resp.error_code = to_wire(error_code::not_controller);
        co_return resp;
    }
    const int16_t version = ctx.header.api_version;
    co_return co_await channel->local()->handle_alter_partition(std::move(req), version);
}

}  // namespace

api_handler alter_partition_handler() {
    return {alter_partition_request::api_key, 0, alter_partition_request::max_version,
            &typed_handler<
                alter_partition_request, alter_partition_response,
                &with_cluster_action<alter_partition_request, alter_partition_response, &handle>>};
}

}  // namespace samsa::server::handlers
