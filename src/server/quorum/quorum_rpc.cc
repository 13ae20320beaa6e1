#include "server/quorum/quorum_rpc.h"

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "net/await_callback.h"
#include "raft/raft_wire.h"
#include "server/authorization.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::quorum {

asio::awaitable<raft::raft_message> ask_quorum(metadata_quorum& q, raft::raft_message& request) {
    auto start = [&q, &request](std::function<void(raft::raft_message)> done) {
        q.handle_request(std::move(request), std::move(done));
    };
    co_return co_await net::await_callback<raft::raft_message>(start);
}

asio::awaitable<handler_result> serve_quorum_request(request_context& ctx) {
    const int16_t key = ctx.header.api_key;
    const int16_t version = ctx.header.api_version;
    std::optional<std::string> cluster_id;
    auto request = raft::decode_raft_request(key, version, ctx.body, cluster_id);
    handler_result out;
    if (!request && request.err().code == error_code::unknown_topic_or_partition) {
        out.body.buffer() = raft::encode_unknown_snapshot_partition(ctx.body, version);
        co_return out;
    }
    if (!request && request.err().code == error_code::invalid_request) {
        // Well formed, but not for the one Raft log there is.
        out.body.buffer() = raft::encode_raft_error_response(key, version, request.err().code);
        co_return out;
    }
    if (!request) {
        co_return handler_result::close("KRaft request failed to decode: " + request.err().message);
    }
    // Only quorum members and brokers: CLUSTER_ACTION on the cluster.
    if (!authorized_on_cluster(ctx, acl::operation::cluster_action)) {
        out.body.buffer() = raft::encode_raft_error_response(
            key, version, error_code::cluster_authorization_failed);
        co_return out;
    }
    auto* q = ctx.broker->quorum;
    if (q && cluster_id && *cluster_id != ctx.broker->settings.cluster_id) {
        // Nodes formatted apart (each with its own generated id) never form a
        // quorum; say so on every refused exchange, with the way out.
        logging::raft().error(
            "event=quorum_cluster_id_mismatch api_key={} peer={} peer_cluster_id={} "
            "cluster_id={} fix=\"the nodes were formatted with different cluster ids: stop "
            "them, and format every node's empty log dirs with the same --cluster-id\"",
            key, ctx.peer, *cluster_id, ctx.broker->settings.cluster_id);
    }
    if (!q || (cluster_id && *cluster_id != ctx.broker->settings.cluster_id)) {
        out.body.buffer() = raft::encode_raft_error_response(
            key, version,
            q ? error_code::inconsistent_cluster_id : error_code::broker_not_available);
        co_return out;
    }
    raft::raft_message& message = *request;
    raft::raft_message answer = co_await ask_quorum(*q, message);
    out.body.buffer() = raft::encode_raft_response(answer, version);
    co_return out;
}

}  // namespace samsa::server::quorum
