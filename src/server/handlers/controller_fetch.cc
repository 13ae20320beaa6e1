#include "server/handlers/controller_fetch.h"

#include "server/authorization.h"

#include "common/error.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "raft/raft_wire.h"
#include "server/quorum/quorum_rpc.h"

namespace samsa::server::handlers {

namespace {

using protocol::fetch_request;
using protocol::fetch_response;

asio::awaitable<fetch_response> handle(request_context& ctx, fetch_request& req) {
    fetch_response resp;
    if (!raft::is_metadata_fetch(req)) {
        // One Raft log per quorum: any other partition is a mistake of the sender.
        resp.error_code = to_wire(error_code::invalid_request);
        co_return resp;
    }
    if (!ctx.broker->quorum) {
        resp.error_code = to_wire(error_code::broker_not_available);
        co_return resp;
    }
    raft::raft_message request = raft::raft_fetch_from_wire(req);
    auto answer = co_await quorum::ask_quorum(*ctx.broker->quorum, request);
    if (auto* f = std::get_if<raft::fetch_response>(&answer)) {
        co_return raft::raft_fetch_to_wire(*f);
    }
    resp.error_code = to_wire(error_code::unknown_server_error);
    co_return resp;
}

}  // namespace

api_handler controller_fetch_handler() {
    return {fetch_request::api_key, 0, fetch_request::max_version,
            &typed_handler<fetch_request, fetch_response,
                           &with_cluster_action<fetch_request, fetch_response, &handle>>};
}

}  // namespace samsa::server::handlers
