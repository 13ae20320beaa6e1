#pragma once
// What request handlers may reach: this broker's identity and settings, and
// the services behind it (metadata cache now; replica manager and coordinators
// as they land). Owned by the server; outlives every connection.
#include <cstdint>
#include <string>
#include <vector>

#include "common/config/broker_config.h"
#include "metadata/metadata_cache.h"
#include "security/acl/authorizer.h"

namespace samsa::metadata {
class controller;
}
namespace samsa::cluster {
class replica_manager;
class fetch_waiters;
}  // namespace samsa::cluster
namespace samsa::coordinator {
class group_coordinator;
}

namespace samsa::coordinator::txn {
class producer_id_manager;
class transaction_coordinator;
}  // namespace samsa::coordinator::txn

namespace samsa::server {

namespace quorum {
class metadata_quorum;
class controller_frontend;
}  // namespace quorum
class handler_registry;
namespace fetch {
class fetch_session_cache;
}

struct broker_settings {
    int32_t node_id = 1;
    std::string cluster_id;
    int32_t socket_request_max_bytes = 104857600;
    // In-flight requests per connection before the reader waits for responses
    // to drain (Kafka mutes a connection with one request in flight; clients
    // pipeline, so we allow some).
    size_t max_inflight_requests_per_connection = 256;
    bool auto_create_topics_enable = true;
    int32_t num_partitions = 1;
    int16_t default_replication_factor = 1;
};

class connection_quotas;
namespace quota {
class client_quota_manager;
class controller_mutation_buckets;
}  // namespace quota

struct broker_context {
    broker_settings settings;
    // Connection and request limits of the client listeners.
    connection_quotas* quotas = nullptr;
    // Client byte-rate quotas (producer_byte_rate, consumer_byte_rate).
    quota::client_quota_manager* client_quotas = nullptr;
    // controller_mutation_rate (KIP-599) token buckets.
    quota::controller_mutation_buckets* mutation_quotas = nullptr;
    const config::broker_config* config = nullptr;  // static + dynamic broker config
    // authorizer.class.name, super.users, allow.everyone.if.no.acl.found.
    security::acl::authorizer_config authorizer;
    metadata::metadata_cache metadata;
    const handler_registry* handlers = nullptr;
    // Every metadata change goes through the active controller (the Raft leader).
    // Set by the server before listeners start: the controller's operations run
    // here when this node is the active controller, and are forwarded to the
    // active controller's listener otherwise.
    quorum::controller_frontend* controller = nullptr;
    // This node's replica of the metadata quorum (KRaft RPCs, DescribeQuorum).
    quorum::metadata_quorum* quorum = nullptr;
    // Local partitions: produce, fetch, list offsets, delete records.
    cluster::replica_manager* replicas = nullptr;
    // Incremental fetch sessions (KIP-227), shared by every reactor.
    fetch::fetch_session_cache* fetch_sessions = nullptr;
    // Long polling: appends notify the fetches waiting for them.
    cluster::fetch_waiters* fetch_waiters = nullptr;
    // Producer ids for InitProducerId, in blocks from the controller.
    coordinator::txn::producer_id_manager* producer_ids = nullptr;
    // Consumer groups and committed offsets (coordinator/group/).
    coordinator::group_coordinator* groups = nullptr;
    // Transactional ids and their transactions (coordinator/txn/).
    coordinator::txn::transaction_coordinator* transactions = nullptr;
};

}  // namespace samsa::server
