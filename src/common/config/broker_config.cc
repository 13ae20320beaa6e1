#include "common/config/broker_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <thread>

#include "common/config/broker_listeners.h"

namespace samsa::config {

namespace {

constexpr int64_t k_minute_ms = 60 * 1000;
constexpr int64_t k_hour_ms = 60 * k_minute_ms;

const std::vector<std::vector<broker_synonym>>& synonym_groups() {
    static const std::vector<std::vector<broker_synonym>> groups = {
        {{"log.retention.ms", 1},
         {"log.retention.minutes", k_minute_ms},
         {"log.retention.hours", k_hour_ms}},
        {{"log.roll.ms", 1}, {"log.roll.hours", k_hour_ms}},
        {{"log.roll.jitter.ms", 1}, {"log.roll.jitter.hours", k_hour_ms}},
        {{"log.flush.interval.ms", 1}, {"log.flush.scheduler.interval.ms", 1}},
    };
    return groups;
}

error config_error(std::string message) {
    return error{error_code::invalid_config, std::move(message)};
}

// "host:port" or "[v6 host]:port"; empty: no HTTP listener.
status parse_metrics_listener(const std::string& value, broker_config& c) {
    if (value.empty()) {
        return {};
    }
    const auto colon = value.rfind(':');
    std::string host = colon == std::string::npos ? "" : value.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);  // an IPv6 address
    } else if (host.find(':') != std::string::npos) {
        host.clear();  // a URL, or an IPv6 address without brackets
    }
    if (host.find_first_of("/[] ") != std::string::npos) {
        host.clear();
    }
    int port = -1;
    if (colon != std::string::npos && colon + 1 < value.size() &&
        value.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
        value.size() - colon - 1 <= 5) {
        port = std::stoi(value.substr(colon + 1));
    }
    if (host.empty() || port < 1 || port > 65535) {
        return config_error(fmt::format(
            "metrics.listener '{}' is not host:port (e.g. 127.0.0.1:9644), nor empty", value));
    }
    c.metrics_host = std::move(host);
    c.metrics_port = uint16_t(port);
    return {};
}

}  // namespace

bool broker_config::is_broker() const {
    return std::find(process_roles.begin(), process_roles.end(), process_role::broker) !=
           process_roles.end();
}

bool broker_config::is_controller() const {
    return std::find(process_roles.begin(), process_roles.end(), process_role::controller) !=
           process_roles.end();
}

const listener* broker_config::find_listener(std::string_view name) const {
    for (const auto& l : listeners) {
        if (l.name == name) {
            return &l;
        }
    }
    return nullptr;
}

std::vector<broker_synonym> broker_synonyms(std::string_view name) {
    for (const auto& group : synonym_groups()) {
        for (const auto& s : group) {
            if (s.name == name) {
                return group;
            }
        }
    }
    return {{std::string(name), 1}};
}

std::optional<int64_t> resolve_synonyms(const config_set& values, std::string_view name) {
    for (const auto& s : broker_synonyms(name)) {
        if (auto v = values.get_optional_long(s.name)) {
            return *v * s.unit_ms;
        }
    }
    return std::nullopt;
}

namespace {

// KIP-848's keys and Kafka's checks of them (GroupCoordinatorConfig): the
// session and heartbeat interval within their bounds, the interval shorter
// than the session.
status read_consumer_group_keys(const config_set& v, broker_config& c) {
    c.group_coordinator_rebalance_protocols = v.get_list("group.coordinator.rebalance.protocols");
    if (std::find(c.group_coordinator_rebalance_protocols.begin(),
                  c.group_coordinator_rebalance_protocols.end(),
                  "classic") == c.group_coordinator_rebalance_protocols.end()) {
        return config_error("group.coordinator.rebalance.protocols must contain classic");
    }
    c.group_consumer_session_timeout_ms = v.get_int("group.consumer.session.timeout.ms");
    c.group_consumer_heartbeat_interval_ms = v.get_int("group.consumer.heartbeat.interval.ms");
    c.group_consumer_max_size = v.get_int("group.consumer.max.size");
    c.group_consumer_migration_policy = v.get_string("group.consumer.migration.policy");
    std::transform(c.group_consumer_migration_policy.begin(),
                   c.group_consumer_migration_policy.end(),
                   c.group_consumer_migration_policy.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
    const int32_t min_session = v.get_int("group.consumer.min.session.timeout.ms");
    const int32_t max_session = v.get_int("group.consumer.max.session.timeout.ms");
    const int32_t min_interval = v.get_int("group.consumer.min.heartbeat.interval.ms");
    const int32_t max_interval = v.get_int("group.consumer.max.heartbeat.interval.ms");
    auto within = [](const char* key, int32_t value, const char* min_key, int32_t min,
                     const char* max_key, int32_t max) -> status {
        if (value < min) {
            return config_error(
                fmt::format("{} must be greater than or equal to {}", key, min_key));
        }
        if (value > max) {
            return config_error(fmt::format("{} must be less than or equal to {}", key, max_key));
        }
        return {};
    };
    if (auto st = within("group.consumer.session.timeout.ms", c.group_consumer_session_timeout_ms,
                         "group.consumer.min.session.timeout.ms", min_session,
                         "group.consumer.max.session.timeout.ms", max_session);
        !st) {
        return st;
    }
    if (auto st =
            within("group.consumer.heartbeat.interval.ms", c.group_consumer_heartbeat_interval_ms,
                   "group.consumer.min.heartbeat.interval.ms", min_interval,
                   "group.consumer.max.heartbeat.interval.ms", max_interval);
        !st) {
        return st;
    }
    if (c.group_consumer_heartbeat_interval_ms >= c.group_consumer_session_timeout_ms) {
        return config_error(
            "group.consumer.heartbeat.interval.ms must be less than "
            "group.consumer.session.timeout.ms");
    }
    c.group_consumer_assignors.clear();
    for (const auto& name : v.get_list("group.consumer.assignors")) {
        // Kafka's class names stand for the assignors of those names.
        std::string shortname = name;
        if (name == "org.apache.kafka.coordinator.group.assignor.UniformAssignor") {
            shortname = "uniform";
        } else if (name == "org.apache.kafka.coordinator.group.assignor.RangeAssignor") {
            shortname = "range";
        }
        if (std::find(c.group_consumer_assignors.begin(), c.group_consumer_assignors.end(),
                      shortname) == c.group_consumer_assignors.end()) {
            c.group_consumer_assignors.push_back(shortname);
        }
    }
    return {};
}

}  // namespace

result<broker_config> build_broker_config(const config_set& v) {
    if (auto required = v.check_required(); !required.ok()) {
        return config_error(required.error_summary());
    }
    broker_config c;
    c.values = v;

    // Identity and roles.
    c.node_id = v.get_int("node.id");
    if (v.is_configured("broker.id") && v.get_int("broker.id") != c.node_id) {
        return config_error(
            fmt::format("broker.id ({}) and node.id ({}) must be the same; node.id "
                        "is the name Samsa uses, broker.id its old synonym",
                        v.get_int("broker.id"), c.node_id));
    }
    for (const auto& r : v.get_list("process.roles")) {
        auto role = r == "broker" ? process_role::broker : process_role::controller;
        if (std::find(c.process_roles.begin(), c.process_roles.end(), role) !=
            c.process_roles.end()) {
            return config_error(fmt::format("process.roles lists '{}' twice", r));
        }
        c.process_roles.push_back(role);
    }
    for (const auto& n : v.get_list("controller.listener.names")) {
        c.controller_listener_names.push_back(normalise_listener_name(n));
    }
    auto voters = parse_quorum_voters(v.get_list("controller.quorum.voters"));
    if (!voters) {
        return voters.err();
    }
    c.controller_quorum_voters = std::move(*voters);
    c.broker_rack = v.get_optional_string("broker.rack");
    c.rack_aware_replica_selector = v.get_optional_string("replica.selector.class").value_or("") ==
                                    "org.apache.kafka.common.replica.RackAwareReplicaSelector";
    if (auto st = parse_metrics_listener(v.get_string("metrics.listener"), c); !st) {
        return st.err();
    }
    c.metrics_admin_writes = v.get_bool("metrics.listener.admin.writes.enable");
    c.broker_session_timeout_ms = v.get_int("broker.session.timeout.ms");
    c.broker_heartbeat_interval_ms = v.get_int("broker.heartbeat.interval.ms");
    c.initial_broker_registration_timeout_ms = v.get_int("initial.broker.registration.timeout.ms");

    // Listeners, and the consistency of roles, listeners and voters.
    if (auto s = resolve_broker_listeners(c, v); !s) {
        return s.err();
    }
    c.socket_send_buffer_bytes = v.get_int("socket.send.buffer.bytes");
    c.socket_receive_buffer_bytes = v.get_int("socket.receive.buffer.bytes");
    c.socket_request_max_bytes = v.get_int("socket.request.max.bytes");
    c.socket_listen_backlog_size = v.get_int("socket.listen.backlog.size");
    c.max_connections = v.get_int("max.connections");
    c.max_connections_per_ip = v.get_int("max.connections.per.ip");
    c.max_connections_per_ip_overrides = v.get_string("max.connections.per.ip.overrides");
    c.connections_max_idle_ms = v.get_long("connections.max.idle.ms");
    c.log_slow_request_ms = v.get_long("log.slow.request.ms");
    c.log_level = v.get_string("log.level");
    c.log_level_overrides = v.get_string("log.level.overrides");
    c.log_json = v.get_string("log.format") == "json";
    c.log_file_path = v.get_string("log.file.path");
    c.log_file_max_bytes = v.get_long("log.file.max.bytes");
    c.log_file_max_backups = v.get_int("log.file.max.backups");
    c.queued_max_requests = v.get_int("queued.max.requests");
    c.request_timeout_ms = v.get_int("request.timeout.ms");
    c.quota_window_num = v.get_int("quota.window.num");
    c.quota_window_size_seconds = v.get_int("quota.window.size.seconds");
    c.controller_quota_window_num = v.get_int("controller.quota.window.num");
    c.controller_quota_window_size_seconds = v.get_int("controller.quota.window.size.seconds");
    c.replication_quota_window_num = v.get_int("replication.quota.window.num");
    c.replication_quota_window_size_seconds = v.get_int("replication.quota.window.size.seconds");

    // Threads.
    c.num_io_threads = v.get_int("num.io.threads");
    if (c.num_io_threads == 0) {
        c.num_io_threads = std::max(1, static_cast<int32_t>(std::thread::hardware_concurrency()));
    }
    c.num_network_threads = v.get_int("num.network.threads");
    c.background_threads = v.get_int("background.threads");
    c.num_recovery_threads_per_data_dir = v.get_int("num.recovery.threads.per.data.dir");
    c.num_replica_fetchers = v.get_int("num.replica.fetchers");

    c.quorum_election_timeout_ms = v.get_int("controller.quorum.election.timeout.ms");
    c.quorum_fetch_timeout_ms = v.get_int("controller.quorum.fetch.timeout.ms");
    c.quorum_election_backoff_max_ms = v.get_int("controller.quorum.election.backoff.max.ms");
    c.quorum_request_timeout_ms = v.get_int("controller.quorum.request.timeout.ms");
    c.quorum_retry_backoff_ms = v.get_int("controller.quorum.retry.backoff.ms");
    c.quorum_append_linger_ms = v.get_int("controller.quorum.append.linger.ms");

    // Storage.
    if (auto dirs = v.get_optional_list("log.dirs")) {
        c.log_dirs = std::move(*dirs);
    } else {
        c.log_dirs = v.get_list("log.dir");
    }
    c.metadata_log_dir = v.get_optional_string("metadata.log.dir").value_or(c.log_dirs.front());
    c.metadata_log_max_record_bytes_between_snapshots =
        v.get_long("metadata.log.max.record.bytes.between.snapshots");
    c.metadata_log_max_snapshot_interval_ms = v.get_long("metadata.log.max.snapshot.interval.ms");
    c.metadata_max_retention_bytes = v.get_long("metadata.max.retention.bytes");
    c.metadata_max_retention_ms = v.get_long("metadata.max.retention.ms");

    // Topics.
    c.num_partitions = v.get_int("num.partitions");
    c.default_replication_factor = v.get_int("default.replication.factor");
    c.auto_create_topics_enable = v.get_bool("auto.create.topics.enable");
    c.delete_topic_enable = v.get_bool("delete.topic.enable");
    c.message_max_bytes = v.get_int("message.max.bytes");
    c.compression_type = v.get_string("compression.type");
    c.min_insync_replicas = v.get_int("min.insync.replicas");
    c.unclean_leader_election_enable = v.get_bool("unclean.leader.election.enable");
    c.fetch_max_bytes = v.get_int("fetch.max.bytes");

    // Log defaults.
    c.log_segment_bytes = v.get_int("log.segment.bytes");
    c.log_roll_ms = *resolve_synonyms(v, "log.roll.ms");
    c.log_roll_jitter_ms = *resolve_synonyms(v, "log.roll.jitter.ms");
    c.log_retention_ms = *resolve_synonyms(v, "log.retention.ms");
    if (c.log_retention_ms < 0) {
        c.log_retention_ms = -1;
    }
    c.log_retention_bytes = v.get_long("log.retention.bytes");
    c.log_retention_check_interval_ms = v.get_long("log.retention.check.interval.ms");
    c.log_cleanup_policy = v.get_list("log.cleanup.policy");
    c.log_index_size_max_bytes = v.get_int("log.index.size.max.bytes");
    c.log_index_interval_bytes = v.get_int("log.index.interval.bytes");
    c.log_flush_interval_messages = v.get_long("log.flush.interval.messages");
    c.log_flush_interval_ms = *resolve_synonyms(v, "log.flush.interval.ms");
    c.log_flush_scheduler_interval_ms = v.get_long("log.flush.scheduler.interval.ms");
    c.log_flush_offset_checkpoint_interval_ms =
        v.get_int("log.flush.offset.checkpoint.interval.ms");
    c.log_flush_start_offset_checkpoint_interval_ms =
        v.get_int("log.flush.start.offset.checkpoint.interval.ms");
    c.max_incremental_fetch_session_cache_slots =
        v.get_int("max.incremental.fetch.session.cache.slots");
    c.log_segment_delete_delay_ms = v.get_long("log.segment.delete.delay.ms");
    c.log_preallocate = v.get_bool("log.preallocate");
    c.log_message_timestamp_type = v.get_string("log.message.timestamp.type");
    const int64_t no_limit = std::numeric_limits<int64_t>::max();
    const int64_t difference = v.get_long("log.message.timestamp.difference.max.ms");
    c.log_message_timestamp_before_max_ms = v.get_long("log.message.timestamp.before.max.ms");
    if (c.log_message_timestamp_before_max_ms == no_limit) {
        c.log_message_timestamp_before_max_ms = difference;
    }
    c.log_message_timestamp_after_max_ms = v.get_long("log.message.timestamp.after.max.ms");
    if (c.log_message_timestamp_after_max_ms == no_limit) {
        c.log_message_timestamp_after_max_ms = difference;
    }
    c.log_cleaner_enable = v.get_bool("log.cleaner.enable");
    c.log_cleaner_threads = v.get_int("log.cleaner.threads");
    c.log_cleaner_dedupe_buffer_size = v.get_long("log.cleaner.dedupe.buffer.size");
    c.log_cleaner_io_buffer_load_factor = v.get_double("log.cleaner.io.buffer.load.factor");
    c.log_cleaner_io_max_bytes_per_second = v.get_double("log.cleaner.io.max.bytes.per.second");
    c.log_cleaner_backoff_ms = v.get_long("log.cleaner.backoff.ms");

    // Replication.
    c.replica_lag_time_max_ms = v.get_long("replica.lag.time.max.ms");
    c.replica_socket_timeout_ms = v.get_int("replica.socket.timeout.ms");
    c.replica_fetch_max_bytes = v.get_int("replica.fetch.max.bytes");
    c.replica_fetch_wait_max_ms = v.get_int("replica.fetch.wait.max.ms");
    c.replica_fetch_min_bytes = v.get_int("replica.fetch.min.bytes");
    c.replica_fetch_backoff_ms = v.get_int("replica.fetch.backoff.ms");
    c.replica_fetch_response_max_bytes = v.get_int("replica.fetch.response.max.bytes");
    c.replica_high_watermark_checkpoint_interval_ms =
        v.get_long("replica.high.watermark.checkpoint.interval.ms");
    c.auto_leader_rebalance_enable = v.get_bool("auto.leader.rebalance.enable");
    c.leader_imbalance_per_broker_percentage = v.get_int("leader.imbalance.per.broker.percentage");
    c.leader_imbalance_check_interval_seconds =
        v.get_long("leader.imbalance.check.interval.seconds");
    if (c.replica_fetch_wait_max_ms > c.replica_socket_timeout_ms) {
        return config_error(
            "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to "
            "prevent unnecessary socket timeouts");
    }
    if (c.replica_fetch_wait_max_ms > c.replica_lag_time_max_ms) {
        return config_error(
            "replica.fetch.wait.max.ms should always be less than or equal to "
            "replica.lag.time.max.ms to prevent frequent changes in ISR");
    }

    // Group coordinator.
    c.offsets_topic_num_partitions = v.get_int("offsets.topic.num.partitions");
    c.offsets_topic_replication_factor = v.get_short("offsets.topic.replication.factor");
    c.offsets_topic_segment_bytes = v.get_int("offsets.topic.segment.bytes");
    c.offsets_retention_minutes = v.get_int("offsets.retention.minutes");
    c.offsets_retention_check_interval_ms = v.get_long("offsets.retention.check.interval.ms");
    c.offsets_commit_timeout_ms = v.get_int("offsets.commit.timeout.ms");
    c.offset_metadata_max_bytes = v.get_int("offset.metadata.max.bytes");
    c.group_initial_rebalance_delay_ms = v.get_int("group.initial.rebalance.delay.ms");
    c.group_min_session_timeout_ms = v.get_int("group.min.session.timeout.ms");
    c.group_max_session_timeout_ms = v.get_int("group.max.session.timeout.ms");
    c.group_max_size = v.get_int("group.max.size");
    c.max_request_partition_size_limit = v.get_int("max.request.partition.size.limit");
    if (auto st = read_consumer_group_keys(v, c); !st) {
        return st.err();
    }

    // Transactions.
    c.transaction_state_log_num_partitions = v.get_int("transaction.state.log.num.partitions");
    c.transaction_state_log_replication_factor =
        v.get_short("transaction.state.log.replication.factor");
    c.transaction_state_log_min_isr = v.get_int("transaction.state.log.min.isr");
    c.transaction_state_log_segment_bytes = v.get_int("transaction.state.log.segment.bytes");
    c.transactional_id_expiration_ms = v.get_int("transactional.id.expiration.ms");
    c.transaction_max_timeout_ms = v.get_int("transaction.max.timeout.ms");
    c.transaction_abort_timed_out_transaction_cleanup_interval_ms =
        v.get_int("transaction.abort.timed.out.transaction.cleanup.interval.ms");
    c.transaction_remove_expired_transaction_cleanup_interval_ms =
        v.get_int("transaction.remove.expired.transaction.cleanup.interval.ms");
    c.transaction_partition_verification_enable =
        v.get_bool("transaction.partition.verification.enable");
    c.producer_id_expiration_ms = v.get_int("producer.id.expiration.ms");

    // Authorization.
    c.authorizer_enabled = !v.get_string("authorizer.class.name").empty();
    // As StandardAuthorizer reads it: split at ';', trimmed, empty parts dropped.
    const std::string supers = v.get_string("super.users");
    for (size_t start = 0; start <= supers.size();) {
        size_t end = std::min(supers.find(';', start), supers.size());
        auto first = supers.find_first_not_of(" \t", start);
        auto last = supers.find_last_not_of(" \t", end == 0 ? 0 : end - 1);
        if (first < end && last != std::string::npos && last >= first) {
            c.super_users.push_back(supers.substr(first, last - first + 1));
        }
        start = end + 1;
    }
    c.allow_everyone_if_no_acl_found = v.get_bool("allow.everyone.if.no.acl.found");
    return c;
}

namespace {

// Kafka's populateSynonyms: node.id and broker.id stand in for each other. The copy
// goes into the layer that holds the original, so its source is reported right.
void populate_id_synonyms(std::map<std::string, std::string>& file,
                          std::map<std::string, std::string>& overrides) {
    auto has = [&](const std::string& k) { return file.count(k) || overrides.count(k); };
    auto copy = [&](const std::string& from, const std::string& to) {
        if (auto it = overrides.find(from); it != overrides.end()) {
            overrides[to] = it->second;
        } else {
            file[to] = file.at(from);
        }
    };
    if (has("broker.id") && !has("node.id")) {
        copy("broker.id", "node.id");
    } else if (has("node.id") && !has("broker.id")) {
        copy("node.id", "broker.id");
    }
}

}  // namespace

result<loaded_broker_config> make_broker_config(const properties& file,
                                                const std::map<std::string, std::string>& overrides,
                                                std::string_view file_name) {
    auto file_values = file.to_map();
    auto override_values = overrides;
    populate_id_synonyms(file_values, override_values);

    config_set values(broker_config_def());
    validation_report file_report = values.set_layer(config_layer::static_file, file_values);
    for (auto* problems : {&file_report.errors, &file_report.warnings}) {
        for (auto& p : *problems) {
            const property* prop = file.find(p.key);
            if (prop && prop->line > 0 && !file_name.empty()) {
                p.message = fmt::format("{}:{}: {}", file_name, prop->line, p.message);
            }
        }
    }
    validation_report report = std::move(file_report);
    validation_report override_report =
        values.set_layer(config_layer::static_override, override_values);
    for (auto* problems : {&override_report.errors, &override_report.warnings}) {
        for (auto& p : *problems) {
            p.message = fmt::format("override {}: {}", p.key, p.message);
        }
    }
    report.merge(std::move(override_report));
    report.merge(values.check_required());
    if (!report.ok()) {
        return config_error(report.error_summary());
    }
    auto config = build_broker_config(values);
    if (!config) {
        return config.err();
    }
    return loaded_broker_config{std::move(*config), std::move(report.warnings)};
}

result<loaded_broker_config> make_broker_config(
    const std::map<std::string, std::string>& file,
    const std::map<std::string, std::string>& overrides) {
    properties props;
    for (const auto& [k, v] : file) {
        props.set(k, v);
    }
    return make_broker_config(props, overrides, "");
}

result<std::map<std::string, std::string>> parse_overrides(const std::vector<std::string>& kvs) {
    std::map<std::string, std::string> out;
    for (const auto& kv : kvs) {
        size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) {
            return config_error(fmt::format("Invalid override '{}': expected key=value", kv));
        }
        out[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return out;
}

result<loaded_broker_config> load_broker_config(const std::filesystem::path& path,
                                                const std::vector<std::string>& overrides) {
    auto props = load_properties_file(path);
    if (!props) {
        return props.err();
    }
    auto ov = parse_overrides(overrides);
    if (!ov) {
        return ov.err();
    }
    return make_broker_config(*props, *ov, path.string());
}

}  // namespace samsa::config
