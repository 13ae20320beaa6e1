#pragma once
// transaction_coordinator: the entry point of the transaction coordinator on
// this broker (KIP-98; docs/transactions.md). It owns a txn_manager per
// reactor shard and routes each request to the manager of the shard that
// leads the transactional id's __transaction_state partition
// (transaction_partition_for), as the group coordinator routes groups: the
// handler's coroutine hops there, and resumes on its own reactor with the
// answer.
//
// It listens for leadership of __transaction_state partitions (the owning
// shard loads or unloads the partition's transactional ids).
//
// Lifecycle: construct after the replica manager and before the first
// metadata image is applied; destroy after the reactors stopped and before
// the replica manager.
#include <asio/awaitable.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/purgatory/purgatory_driver.h"
#include "cluster/replica_manager.h"
#include "coordinator/txn/txn_manager.h"
#include "metadata/metadata_cache.h"
#include "net/kafka_rpc_client.h"
#include "security/client_security.h"

namespace samsa::coordinator::txn {

class producer_id_manager;

struct txn_coordinator_settings {
    txn_config config;
    std::string inter_broker_listener;
    // TLS client settings when the inter-broker listener is SSL (null: plaintext).
    std::shared_ptr<const security::client_security> inter_broker_security;
    int32_t node_id = -1;
    int32_t request_timeout_ms = 30000;
};

class transaction_coordinator {
  public:
    transaction_coordinator(txn_coordinator_settings settings, cluster::replica_manager& replicas,
                            const metadata::metadata_cache& metadata, producer_id_manager& ids);
    ~transaction_coordinator();
    transaction_coordinator(const transaction_coordinator&) = delete;
    transaction_coordinator& operator=(const transaction_coordinator&) = delete;

    const txn_config& config() const { return _settings.config; }
    int32_t partition_for(const std::string& id) const {
        return transaction_partition_for(id, _settings.config.num_partitions);
    }

    // ---- requests (from any reactor; each resumes on the caller's reactor)
    asio::awaitable<init_pid_result> init_producer_id(const std::string& id, int32_t txn_timeout_ms,
                                                      samsa::producer_id producer_id,
                                                      int16_t epoch);
    asio::awaitable<error_code> add_partitions(
        const std::string& id, samsa::producer_id producer_id, int16_t epoch,
        const std::vector<storage::topic_partition>& partitions, bool verify_only);
    asio::awaitable<error_code> end_txn(const std::string& id, samsa::producer_id producer_id,
                                        int16_t epoch, bool commit);
    // Every shard's transactions that match; `loading` when a partition loads.
    asio::awaitable<std::vector<txn_listing>> list(
        const std::vector<txn_state>& states, const std::vector<samsa::producer_id>& producer_ids,
        bool& loading);
    asio::awaitable<std::pair<error_code, transaction_metadata>> describe(const std::string& id);

    // KIP-890, for a partition leader: whether the id's ongoing transaction
    // (this producer id and epoch) holds every partition. Asks this
    // broker's manager when it coordinates the id, else the coordinator's
    // leader with AddPartitionsToTxn v4 verify_only. NONE or the
    // coordinator's error (NETWORK_EXCEPTION when it could not be asked).
    asio::awaitable<error_code> verify_partitions(
        const std::string& id, samsa::producer_id producer_id, int16_t epoch,
        const std::vector<storage::topic_partition>& partitions);

    // Every manager's runtime tells `fn` of its appends (the fetch waiters).
    void set_append_listener(const std::function<void(const storage::topic_partition&)>& fn) {
        for (auto& m : _managers) {
            m->runtime().set_append_listener(fn);
        }
    }

  private:
    std::optional<size_t> shard_for(const std::string& id) const;
    void on_leadership(size_t shard, const storage::topic_partition& tp, cluster::partition* p,
                       bool is_leader);
    template <typename Resp, typename Fn>
    asio::awaitable<Resp> call_with_callback(size_t shard, Fn& fn);
    std::shared_ptr<net::kafka_rpc_client> client_for(node_id node, const std::string& host,
                                                      uint16_t port);

    txn_coordinator_settings _settings;
    cluster::replica_manager& _replicas;
    const metadata::metadata_cache& _metadata;
    producer_id_manager& _ids;
    std::vector<std::unique_ptr<cluster::purgatory_driver>> _drivers;
    std::vector<std::unique_ptr<txn_manager>> _managers;
    std::mutex _clients_mutex;  // verification requests come from every reactor
    std::map<node_id, std::shared_ptr<net::kafka_rpc_client>> _clients;
};

}  // namespace samsa::coordinator::txn
