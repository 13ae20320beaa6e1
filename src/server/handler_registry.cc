#include "server/handler_registry.h"

#include <algorithm>

#include "protocol/generated/api_table.h"

#include "server/handlers/add_offsets_to_txn.h"
#include "server/handlers/add_partitions_to_txn.h"
#include "server/handlers/alter_client_quotas.h"
#include "server/handlers/alter_configs.h"
#include "server/handlers/alter_partition_reassignments.h"
#include "server/handlers/alter_replica_log_dirs.h"
#include "server/handlers/alter_user_scram_credentials.h"
#include "server/handlers/api_versions.h"
#include "server/handlers/controller_fetch.h"
#include "server/handlers/create_acls.h"
#include "server/handlers/create_partitions.h"
#include "server/handlers/create_topics.h"
#include "server/handlers/delete_acls.h"
#include "server/handlers/delete_records.h"
#include "server/handlers/delete_topics.h"
#include "server/handlers/describe_acls.h"
#include "server/handlers/describe_client_quotas.h"
#include "server/handlers/describe_cluster.h"
#include "server/handlers/describe_configs.h"
#include "server/handlers/describe_log_dirs.h"
#include "server/handlers/describe_producers.h"
#include "server/handlers/describe_transactions.h"
#include "server/handlers/describe_user_scram_credentials.h"
#include "server/handlers/end_txn.h"
#include "server/handlers/fetch.h"
#include "server/handlers/incremental_alter_configs.h"
#include "server/handlers/init_producer_id.h"
#include "server/handlers/list_offsets.h"
#include "server/handlers/list_partition_reassignments.h"
#include "server/handlers/list_transactions.h"
#include "server/handlers/metadata.h"
#include "server/handlers/offset_for_leader_epoch.h"
#include "server/handlers/produce.h"
#include "server/handlers/sasl_authenticate.h"
#include "server/handlers/sasl_handshake.h"
#include "server/handlers/txn_offset_commit.h"
#include "server/handlers/update_features.h"
#include "server/handlers/write_txn_markers.h"
// Consumer groups (coordinator/group/).
#include "server/handlers/consumer_group_describe.h"
#include "server/handlers/consumer_group_heartbeat.h"
#include "server/handlers/delete_groups.h"
#include "server/handlers/describe_groups.h"
#include "server/handlers/describe_topic_partitions.h"
#include "server/handlers/find_coordinator.h"
#include "server/handlers/heartbeat.h"
#include "server/handlers/join_group.h"
#include "server/handlers/leave_group.h"
#include "server/handlers/list_groups.h"
#include "server/handlers/offset_commit.h"
#include "server/handlers/offset_delete.h"
#include "server/handlers/offset_fetch.h"
#include "server/handlers/sync_group.h"
#include "server/handlers/unregister_broker.h"
// The metadata quorum and the controller (controller listener).
#include "server/handlers/allocate_producer_ids.h"
#include "server/handlers/alter_partition.h"
#include "server/handlers/begin_quorum_epoch.h"
#include "server/handlers/broker_heartbeat.h"
#include "server/handlers/broker_registration.h"
#include "server/handlers/describe_quorum.h"
#include "server/handlers/elect_leaders.h"
#include "server/handlers/end_quorum_epoch.h"
#include "server/handlers/fetch_snapshot.h"
#include "server/handlers/vote.h"

namespace samsa::server {

handler_registry::handler_registry() {
    // Each handler goes to the listeners its API's schema names.
    const std::vector<api_handler> handlers = {
        handlers::api_versions_handler(),
        // Authentication of SASL listeners (server/sasl_session.h).
        handlers::sasl_handshake_handler(),
        handlers::sasl_authenticate_handler(),
        handlers::delete_records_handler(),
        handlers::describe_log_dirs_handler(),
        handlers::alter_replica_log_dirs_handler(),
        handlers::fetch_handler(),
        handlers::list_offsets_handler(),
        handlers::metadata_handler(),
        handlers::offset_for_leader_epoch_handler(),
        handlers::produce_handler(),
        // Topic and config admin (metadata/controller.h).
        handlers::create_topics_handler(),
        handlers::delete_topics_handler(),
        handlers::create_partitions_handler(),
        // Partition reassignment (metadata/partition_reassignment.h).
        handlers::alter_partition_reassignments_handler(),
        handlers::list_partition_reassignments_handler(),
        handlers::describe_configs_handler(),
        handlers::alter_configs_handler(),
        handlers::incremental_alter_configs_handler(),
        handlers::describe_cluster_handler(),
        // SCRAM users (metadata/scram_alteration.h).
        handlers::describe_user_scram_credentials_handler(),
        handlers::alter_user_scram_credentials_handler(),
        // ACLs (metadata/acl_changes.h, server/authorization.h).
        handlers::create_acls_handler(),
        handlers::describe_acls_handler(),
        handlers::delete_acls_handler(),
        // Client quotas (metadata/client_quota_alteration.h, server/quota/).
        handlers::describe_client_quotas_handler(),
        handlers::alter_client_quotas_handler(),
        handlers::update_features_handler(),
        // Idempotent producer (coordinator/txn/producer_id_manager.h).
        handlers::init_producer_id_handler(),
        handlers::describe_producers_handler(),
        handlers::add_partitions_to_txn_handler(),
        handlers::add_offsets_to_txn_handler(),
        handlers::end_txn_handler(),
        handlers::write_txn_markers_handler(),
        handlers::txn_offset_commit_handler(),
        handlers::describe_transactions_handler(),
        handlers::list_transactions_handler(),
        // Consumer groups and committed offsets (coordinator/group/).
        handlers::find_coordinator_handler(),
        handlers::join_group_handler(),
        handlers::sync_group_handler(),
        handlers::heartbeat_handler(),
        handlers::leave_group_handler(),
        handlers::offset_commit_handler(),
        handlers::offset_fetch_handler(),
        handlers::offset_delete_handler(),
        handlers::list_groups_handler(),
        handlers::describe_groups_handler(),
        handlers::delete_groups_handler(),
        handlers::consumer_group_heartbeat_handler(),
        handlers::consumer_group_describe_handler(),
        handlers::describe_topic_partitions_handler(),
        handlers::unregister_broker_handler(),

        handlers::vote_handler(),
        handlers::begin_quorum_epoch_handler(),
        handlers::end_quorum_epoch_handler(),
        handlers::fetch_snapshot_handler(),
        handlers::describe_quorum_handler(),
        handlers::elect_leaders_handler(),
        handlers::broker_registration_handler(),
        handlers::broker_heartbeat_handler(),
        handlers::allocate_producer_ids_handler(),
        handlers::alter_partition_handler(),
    };
    // Served on controller listeners instead of the handler above of the same key.
    const std::vector<api_handler> controller_only = {
        handlers::controller_fetch_handler(),
    };
    auto has = [](const std::vector<api_handler>& list, int16_t key) {
        return std::any_of(list.begin(), list.end(),
                           [key](const api_handler& h) { return h.key == key; });
    };
    for (const auto& h : handlers) {
        if (served_on(h.key, false)) {
            _client.push_back(h);
        }
        if (served_on(h.key, true) && !has(controller_only, h.key)) {
            _controller.push_back(h);
        }
    }
    for (const auto& h : controller_only) {
        _controller.push_back(h);
    }
    auto by_key = [](const api_handler& a, const api_handler& b) { return a.key < b.key; };
    std::sort(_client.begin(), _client.end(), by_key);
    std::sort(_controller.begin(), _controller.end(), by_key);
}

const api_handler* handler_registry::find(int16_t key, listener_kind listener) const {
    auto list = all(listener);
    auto it = std::lower_bound(list.begin(), list.end(), key,
                               [](const api_handler& h, int16_t k) { return h.key < k; });
    return it != list.end() && it->key == key ? &*it : nullptr;
}

bool handler_registry::served_on(int16_t key, bool controller_listener) {
    const auto* schema = protocol::find_api_schema(key);
    if (!schema) {
        return false;
    }
    return controller_listener ? schema->controller_listener : schema->broker_listener;
}

}  // namespace samsa::server
