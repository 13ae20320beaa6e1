#pragma once
// controller_frontend: how a broker reaches the active controller (Kafka's
// ForwardingManager, KIP-590). When this node is the Raft leader (the active
// controller) an operation runs on the local controller; otherwise the
// request is forwarded, as the client sent it, to the leader's controller
// listener (`controller.quorum.voters`) and its answer returned. An admin
// request that finds no controller (an election, a lost connection) is sent
// again until its own deadline, as Kafka's forwarding manager does; only then
// does it answer NOT_CONTROLLER.
//
// Handlers of the admin APIs in metadata/controller_apis.h all call it alike:
//
//   co_return co_await ctx.broker->controller->call(std::move(req));
#include <asio/awaitable.hpp>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "common/config/broker_config.h"
#include "metadata/controller.h"
#include "metadata/controller_apis.h"
#include "net/kafka_rpc_client.h"
#include "protocol/generated/alter_partition_request.h"
#include "protocol/generated/alter_partition_response.h"
#include "protocol/generated/broker_heartbeat_request.h"
#include "protocol/generated/broker_heartbeat_response.h"
#include "protocol/generated/broker_registration_request.h"
#include "protocol/generated/broker_registration_response.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"
#include "protocol/message_codec.h"
#include "security/client_security.h"
#include "server/quorum/forward_retry.h"

namespace samsa::server::quorum {

class metadata_quorum;

class controller_frontend {
  public:
    // `local` is null on a node without the controller role; `tls` says how
    // to reach an SSL controller listener (null: plaintext).
    controller_frontend(const config::broker_config& cfg, metadata::controller* local,
                        metadata_quorum& quorum, asio::any_io_executor client_executor,
                        std::shared_ptr<const security::client_security> security = nullptr);
    ~controller_frontend();

    // Whether operations run here (this node leads the quorum).
    bool local_is_active() const;
    // The quorum has a new leader (or none, -1): what is in flight to any
    // other node fails now, and is sent again to the new one, rather than
    // waiting out request.timeout.ms on a controller that may be cut off.
    // A heartbeat stuck so outlived the broker's session (docs/faults.md),
    // as Kafka's channel to the controller drops the old one for the same
    // reason.
    void leader_changed(int32_t leader);
    metadata::controller* local() const { return _local; }

    // An admin API of metadata/controller_apis.h, run here or forwarded (in
    // the request's latest version); every item answers NOT_CONTROLLER when
    // no controller answered before the request's deadline.
    template <metadata::controller_served Request>
    asio::awaitable<metadata::response_of<Request>> call(Request request);

    // This broker's epoch, once registered (AllocateProducerIds names it).
    void set_broker_epoch(int64_t epoch) { _broker_epoch = epoch; }

    asio::awaitable<result<metadata::producer_id_block>> allocate_producer_ids(
        int32_t count = metadata::producer_id_block_size);

    // ElectLeaders: local or forwarded; an error when no controller answered.
    asio::awaitable<result<protocol::elect_leaders_response>> elect_leaders(
        const protocol::elect_leaders_request& request, int16_t version);
    // AlterPartition from a leader on this broker: local or forwarded; an
    // error when it could not reach the active controller.
    asio::awaitable<result<protocol::alter_partition_response>> alter_partition(
        const protocol::alter_partition_request& request);

    // Always over the network, to the active controller (even this node):
    // broker registration and heartbeats, as Kafka's brokers send them.
    // (References: the caller's objects outlive the call; see forward.)
    asio::awaitable<result<protocol::broker_registration_response>> register_broker(
        const protocol::broker_registration_request& request);
    asio::awaitable<result<protocol::broker_heartbeat_response>> heartbeat(
        const protocol::broker_heartbeat_request& request);

    // The body of `api_key`/`version` sent to the active controller; its
    // answer's body. `body` by reference: GCC 12 destroys some temporaries of a
    // co_await expression twice, so callers pass a named object.
    asio::awaitable<result<bytes>> forward(int16_t api_key, int16_t version, const bytes& body);

  private:
    // Whether the controller's answer says it no longer is the controller
    // (its leadership moved while the request travelled): worth sending again.
    template <typename Request, typename Response>
    static bool names_not_controller(const Response& r) {
        if constexpr (metadata::controller_served<Request>) {
            return metadata::names_not_controller<Request>(r);
        } else {
            return r.error_code == to_wire(error_code::not_controller);
        }
    }
    template <typename Request, typename Response>
    asio::awaitable<result<Response>> forward_typed(const Request& request, int16_t version);
    // Runs `local` here when this node is the active controller, else
    // forwards; retries while no controller answers, until the request's
    // deadline (its timeout_ms, or request.timeout.ms).
    template <typename Request, typename Response, typename Local>
    asio::awaitable<result<Response>> on_controller(Request request, int16_t version, Local local);
    std::shared_ptr<net::kafka_rpc_client> client_for(int32_t node);

    const config::broker_config& _cfg;
    metadata::controller* _local;
    metadata_quorum& _quorum;
    asio::any_io_executor _ex;
    std::shared_ptr<const security::client_security> _security;
    std::atomic<int64_t> _broker_epoch{-1};
    std::mutex _mutex;
    std::map<int32_t, std::shared_ptr<net::kafka_rpc_client>> _clients;
};

template <typename Request, typename Response>
asio::awaitable<result<Response>> controller_frontend::forward_typed(const Request& request,
                                                                     int16_t version) {
    const bytes encoded = protocol::encode_message(request, version);
    auto body = co_await forward(Request::api_key, version, encoded);
    if (!body) {
        co_return body.err();
    }
    auto resp = protocol::decode_message<Response>(*body, version);
    if (!resp) {
        co_return error(error_code::not_controller, "the controller's answer did not decode");
    }
    co_return std::move(*resp);
}

// Runs here while this node is the active controller; otherwise forwards, and
// sends again while no controller answers (forward_retry.h), to whichever node
// leads by then, this one included.
template <typename Request, typename Response, typename Local>
asio::awaitable<result<Response>> controller_frontend::on_controller(Request req, int16_t version,
                                                                     Local local) {
    bool answered_here = false;
    auto attempt = [&]() -> asio::awaitable<result<Response>> {
        answered_here = local_is_active();
        auto op = answered_here ? local(req) : forward_typed<Request, Response>(req, version);
        co_return co_await std::move(op);
    };
    auto worth_retrying = [&](const result<Response>& r) {
        return !answered_here && (!r || names_not_controller<Request, Response>(*r));
    };
    co_return co_await retry_until_deadline<Response>(patience_of(req, _cfg.request_timeout_ms),
                                                      attempt, worth_retrying);
}

template <metadata::controller_served Request>
asio::awaitable<metadata::response_of<Request>> controller_frontend::call(Request req) {
    using response = metadata::response_of<Request>;
    if constexpr (requires { metadata::controller_api<Request>::to_latest(req); }) {
        metadata::controller_api<Request>::to_latest(req);
    }
    auto local = [this](Request r) -> asio::awaitable<result<response>> {
        co_return co_await metadata::submit(*_local, std::move(r));
    };
    const Request copy = req;
    auto r = co_await on_controller<Request, response>(std::move(req), Request::max_version, local);
    if (!r) {
        co_return metadata::answer_with(copy, error_code::not_controller, r.err().message);
    }
    co_return std::move(*r);
}

}  // namespace samsa::server::quorum
