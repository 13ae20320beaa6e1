#pragma once
// broker_config: Samsa's broker configuration as typed fields with Kafka's names,
// built from a validated config_set (server.properties + command-line overrides,
// later dynamic layers). The config_set stays inside for DescribeConfigs.
//
//   auto loaded = load_broker_config("config/server.properties", {"node.id=2"});
//   if (!loaded) { spdlog::error("{}", loaded.err().message); return 1; }
//   for (const auto& w : loaded->warnings) spdlog::warn("{}", w.message);
//   const broker_config& cfg = loaded->config;
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/broker_config_def.h"
#include "common/config/config_set.h"
#include "common/config/listener.h"
#include "common/config/properties.h"
#include "common/config/quorum_voters.h"
#include "common/result.h"

namespace samsa::config {

enum class process_role : uint8_t { broker, controller };

struct broker_config {
    // ---- identity, roles, quorum
    int32_t node_id = -1;  // node.id (broker.id is its synonym)
    std::vector<process_role> process_roles;
    std::vector<std::string> controller_listener_names;  // upper case
    std::vector<quorum_voter> controller_quorum_voters;
    std::optional<std::string> broker_rack;
    // metrics.listener: the HTTP listener of /metrics and the health checks;
    // an empty host means none is served.
    std::string metrics_host;
    uint16_t metrics_port = 0;
    // metrics.listener.admin.writes.enable: the admin API's writes are served.
    bool metrics_admin_writes = false;
    // replica.selector.class names the rack-aware selector (KIP-392).
    bool rack_aware_replica_selector = false;
    int32_t broker_session_timeout_ms = 0;
    int32_t broker_heartbeat_interval_ms = 0;
    int32_t initial_broker_registration_timeout_ms = 0;
    // controller.quorum.*: the Raft timers (raft/raft_config.h).
    int32_t quorum_election_timeout_ms = 0;
    int32_t quorum_fetch_timeout_ms = 0;
    int32_t quorum_election_backoff_max_ms = 0;
    int32_t quorum_request_timeout_ms = 0;
    int32_t quorum_retry_backoff_ms = 0;
    int32_t quorum_append_linger_ms = 0;

    // ---- listeners and sockets
    std::vector<listener> listeners;
    // What is published for clients and brokers: advertised.listeners, or else
    // listeners without the controller listeners. An empty host here means "this
    // machine's host name", which the server fills in.
    std::vector<listener> advertised_listeners;
    // Controller listeners named in advertised.listeners (KIP-853: a combined
    // node publishes its controller endpoint there); never told to clients.
    std::vector<listener> advertised_controller_listeners;
    protocol_map listener_security_protocol_map;  // effective (controller names added)
    std::string inter_broker_listener_name;
    int32_t socket_send_buffer_bytes = 0;
    int32_t socket_receive_buffer_bytes = 0;
    int32_t socket_request_max_bytes = 0;
    int32_t socket_listen_backlog_size = 0;
    int32_t max_connections = 0;
    int32_t max_connections_per_ip = 0;
    std::string max_connections_per_ip_overrides;  // host:count,... (server/connection_quotas.h)
    int64_t connections_max_idle_ms = 0;
    // log.slow.request.ms: a request that took longer is logged; 0: none.
    int64_t log_slow_request_ms = 0;
    // Logging (common/logging/): the root level, per-logger levels, layout
    // and the optional rotated file.
    std::string log_level = "INFO";
    std::string log_level_overrides;
    bool log_json = false;
    std::string log_file_path;
    int64_t log_file_max_bytes = 0;
    int32_t log_file_max_backups = 0;
    int32_t queued_max_requests = 0;
    int32_t request_timeout_ms = 0;
    // Client quotas' sampled rate (server/quota/client_quota_manager.h).
    int32_t quota_window_num = 11;
    int32_t quota_window_size_seconds = 1;
    // The controller_mutation_rate token bucket: the burst it allows is the
    // quota times samples times size (server/quota/controller_mutation_quota.h).
    int32_t controller_quota_window_num = 11;
    int32_t controller_quota_window_size_seconds = 1;
    int32_t replication_quota_window_num = 11;
    int32_t replication_quota_window_size_seconds = 1;

    // ---- authorization
    bool authorizer_enabled = false;       // authorizer.class.name is StandardAuthorizer
    std::vector<std::string> super_users;  // super.users, split at ';'
    bool allow_everyone_if_no_acl_found = false;

    // ---- threads
    int32_t num_io_threads = 0;  // resolved: 0 in the config means one per core
    int32_t num_network_threads = 0;
    int32_t background_threads = 0;
    int32_t num_recovery_threads_per_data_dir = 0;
    int32_t num_replica_fetchers = 0;

    // ---- storage
    std::vector<std::string> log_dirs;  // log.dirs, else log.dir
    std::string metadata_log_dir;       // metadata.log.dir, else log_dirs[0]
    int64_t metadata_log_max_record_bytes_between_snapshots = 0;
    int64_t metadata_log_max_snapshot_interval_ms = 0;
    int64_t metadata_max_retention_bytes = 0;  // -1: no limit
    int64_t metadata_max_retention_ms = 0;     // -1: no limit

    // ---- topics
    int32_t num_partitions = 0;
    int32_t default_replication_factor = 0;
    bool auto_create_topics_enable = false;
    bool delete_topic_enable = false;
    int32_t message_max_bytes = 0;
    std::string compression_type;
    int32_t min_insync_replicas = 0;
    bool unclean_leader_election_enable = false;
    int32_t fetch_max_bytes = 0;

    // ---- log defaults (topic configs fall back to these; time synonyms resolved)
    int32_t log_segment_bytes = 0;
    int64_t log_roll_ms = 0;         // log.roll.ms > log.roll.hours
    int64_t log_roll_jitter_ms = 0;  // log.roll.jitter.ms > log.roll.jitter.hours
    int64_t log_retention_ms = 0;    // log.retention.ms > .minutes > .hours; -1 = no limit
    int64_t log_retention_bytes = 0;
    int64_t log_retention_check_interval_ms = 0;
    std::vector<std::string> log_cleanup_policy;
    int32_t log_index_size_max_bytes = 0;
    int32_t log_index_interval_bytes = 0;
    int64_t log_flush_interval_messages = 0;
    int64_t log_flush_interval_ms = 0;  // log.flush.interval.ms > log.flush.scheduler.interval.ms
    int64_t log_flush_scheduler_interval_ms = 0;
    int32_t log_flush_offset_checkpoint_interval_ms = 0;
    int32_t log_flush_start_offset_checkpoint_interval_ms = 0;
    int32_t max_incremental_fetch_session_cache_slots = 0;
    int64_t log_segment_delete_delay_ms = 0;
    bool log_preallocate = false;
    std::string log_message_timestamp_type;  // "CreateTime" or "LogAppendTime"
    // before/after.max.ms, falling back to the deprecated difference.max.ms while
    // they keep their defaults (as Kafka 3.6-3.9 do).
    int64_t log_message_timestamp_before_max_ms = 0;
    int64_t log_message_timestamp_after_max_ms = 0;
    bool log_cleaner_enable = false;
    int32_t log_cleaner_threads = 0;
    int64_t log_cleaner_dedupe_buffer_size = 0;
    double log_cleaner_io_buffer_load_factor = 0;
    double log_cleaner_io_max_bytes_per_second = 0;
    int64_t log_cleaner_backoff_ms = 0;

    // ---- replication
    int64_t replica_lag_time_max_ms = 0;
    int32_t replica_socket_timeout_ms = 0;
    int32_t replica_fetch_max_bytes = 0;
    int32_t replica_fetch_wait_max_ms = 0;
    int32_t replica_fetch_min_bytes = 0;
    int32_t replica_fetch_backoff_ms = 0;
    int32_t replica_fetch_response_max_bytes = 0;
    int64_t replica_high_watermark_checkpoint_interval_ms = 0;
    bool auto_leader_rebalance_enable = false;
    int32_t leader_imbalance_per_broker_percentage = 0;
    int64_t leader_imbalance_check_interval_seconds = 0;

    // ---- group coordinator
    int32_t offsets_topic_num_partitions = 0;
    int16_t offsets_topic_replication_factor = 0;
    int32_t offsets_topic_segment_bytes = 0;
    int32_t offsets_retention_minutes = 0;
    int64_t offsets_retention_check_interval_ms = 0;
    int32_t offsets_commit_timeout_ms = 0;
    int32_t offset_metadata_max_bytes = 0;
    int32_t group_initial_rebalance_delay_ms = 0;
    int32_t group_min_session_timeout_ms = 0;
    int32_t group_max_session_timeout_ms = 0;
    int32_t group_max_size = 0;
    int32_t max_request_partition_size_limit = 2000;
    // KIP-848 consumer groups.
    std::vector<std::string> group_coordinator_rebalance_protocols;
    int32_t group_consumer_session_timeout_ms = 0;
    int32_t group_consumer_heartbeat_interval_ms = 0;
    int32_t group_consumer_max_size = 0;
    // group.consumer.migration.policy, lower case: "bidirectional",
    // "upgrade", "downgrade" or "disabled".
    std::string group_consumer_migration_policy;
    // Short names ("uniform", "range"), in the configured order.
    std::vector<std::string> group_consumer_assignors;

    // ---- transactions
    int32_t transaction_state_log_num_partitions = 0;
    int16_t transaction_state_log_replication_factor = 0;
    int32_t transaction_state_log_min_isr = 0;
    int32_t transaction_state_log_segment_bytes = 0;
    int32_t transactional_id_expiration_ms = 0;
    int32_t transaction_max_timeout_ms = 0;
    int32_t transaction_abort_timed_out_transaction_cleanup_interval_ms = 0;
    int32_t transaction_remove_expired_transaction_cleanup_interval_ms = 0;
    // KIP-890: a partition leader checks with the transaction coordinator
    // that a transactional producer's first write to it belongs to an
    // ongoing transaction that holds the partition.
    bool transaction_partition_verification_enable = true;
    int32_t producer_id_expiration_ms = 0;

    // Every key with its value, source and synonyms (DescribeConfigs, dynamic updates).
    config_set values{broker_config_def()};

    bool is_broker() const;
    bool is_controller() const;
    // The listener named `name`, or nullptr.
    const listener* find_listener(std::string_view name) const;
};

struct loaded_broker_config {
    broker_config config;
    std::vector<config_problem> warnings;  // unknown keys
};

// Builds a broker config from server.properties contents and command-line
// overrides (which win over the file). Errors: every invalid value (naming key,
// value and what is allowed; file entries with their line), missing required keys,
// and inconsistent keys (roles vs listeners, voters, broker.id vs node.id, ...).
result<loaded_broker_config> make_broker_config(const properties& file,
                                                const std::map<std::string, std::string>& overrides,
                                                std::string_view file_name = "server.properties");
result<loaded_broker_config> make_broker_config(
    const std::map<std::string, std::string>& file,
    const std::map<std::string, std::string>& overrides = {});

// Reads `path` and applies `overrides`, each "key=value" (samsa server --override).
result<loaded_broker_config> load_broker_config(const std::filesystem::path& path,
                                                const std::vector<std::string>& overrides = {});

// "key=value" strings to a map; the first '=' splits. A string without '=' or with
// an empty key is an error.
result<std::map<std::string, std::string>> parse_overrides(const std::vector<std::string>& kvs);

// Derives the typed fields from a config_set whose layers are already validated
// (e.g. after a dynamic layer changed), running the cross-key checks.
result<broker_config> build_broker_config(const config_set& values);

// Kafka's broker time-unit synonyms, highest priority first. For a member of a
// group it returns the whole group; for any other key, just that key (unit 1).
//   log.retention.ms > log.retention.minutes > log.retention.hours
//   log.roll.ms > log.roll.hours, log.roll.jitter.ms > log.roll.jitter.hours
//   log.flush.interval.ms > log.flush.scheduler.interval.ms
struct broker_synonym {
    std::string name;
    int64_t unit_ms = 1;  // multiply the configured value by this
};
std::vector<broker_synonym> broker_synonyms(std::string_view name);

// The value of the first synonym of `name` that is not null, converted to the
// primary key's unit (ms for the time groups); nullopt if all are null.
std::optional<int64_t> resolve_synonyms(const config_set& values, std::string_view name);

}  // namespace samsa::config
