#pragma once
// controller_channel: how a broker reaches the active controller. When this
// node is the Raft leader (the active controller) an operation runs on the
// local controller; otherwise the request is forwarded, as the client sent it,
// to the leader's controller listener (`controller.quorum.voters`) and its
// answer returned. An admin request that finds no controller (an election,
// a lost connection) is sent again until its own deadline, as Kafka's
// forwarding manager does; only then does it answer NOT_CONTROLLER.
//
// Handlers use it exactly as they would use the controller:
//
//   co_return co_await ctx.broker->controller->create_topics(std::move(req));
#include <asio/awaitable.hpp>
#include <map>
#include <memory>
#include <mutex>

#include "common/config/broker_config.h"
#include "metadata/controller.h"
#include "net/kafka_rpc_client.h"
#include "protocol/generated/alter_partition_request.h"
#include "protocol/generated/alter_partition_response.h"
#include "protocol/generated/broker_heartbeat_request.h"
#include "protocol/generated/broker_heartbeat_response.h"
#include "protocol/generated/broker_registration_request.h"
#include "protocol/generated/broker_registration_response.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"

namespace samsa::server::quorum {

class metadata_quorum;

class controller_channel {
  public:
    // `local` is null on a node without the controller role.
    controller_channel(const config::broker_config& cfg, metadata::controller* local,
                       metadata_quorum& quorum, asio::any_io_executor client_executor);
    ~controller_channel();

    // Whether operations run here (this node leads the quorum).
    bool local_is_active() const;
    metadata::controller* local() const { return _local; }

    asio::awaitable<protocol::create_topics_response> create_topics(
        protocol::create_topics_request request);
    asio::awaitable<protocol::delete_topics_response> delete_topics(
        protocol::delete_topics_request request);
    asio::awaitable<protocol::create_partitions_response> create_partitions(
        protocol::create_partitions_request request);
    asio::awaitable<protocol::alter_configs_response> alter_configs(
        protocol::alter_configs_request request);
    asio::awaitable<protocol::incremental_alter_configs_response> incremental_alter_configs(
        protocol::incremental_alter_configs_request request);
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
    std::mutex _mutex;
    std::map<int32_t, std::shared_ptr<net::kafka_rpc_client>> _clients;
};

}  // namespace samsa::server::quorum
