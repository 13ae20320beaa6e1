#include "common/config/topic_config.h"

#include <fmt/format.h>

#include <cassert>
#include <limits>

#include "common/config/broker_config.h"
#include "common/config/broker_config_def.h"

namespace samsa::config {

namespace {

constexpr auto k_int = config_type::int32;
constexpr auto k_long = config_type::int64;
constexpr auto k_double = config_type::float64;
constexpr auto k_bool = config_type::boolean;
constexpr auto k_string = config_type::string;
constexpr auto k_list = config_type::list;

const std::string k_long_max = std::to_string(std::numeric_limits<int64_t>::max());

// Kafka's ThrottledReplicaListValidator: "*" alone, or partition:broker pairs.
validator throttled_replicas_validator() {
    return validator::custom(
        "[partitionId]:[brokerId],[partitionId]:[brokerId],... or *",
        [](const config_value& v) -> std::optional<std::string> {
            const auto* lp = std::get_if<list_value>(&v);
            if (!lp) {
                return "Expected a list";
            }
            const auto& l = *lp;
            if (l.size() == 1 && l[0] == "*") {
                return std::nullopt;
            }
            for (const auto& e : l) {
                size_t colon = e.find(':');
                auto digits = [](std::string_view s) {
                    return !s.empty() && s.find_first_not_of("0123456789") == s.npos;
                };
                if (colon == std::string::npos || !digits(std::string_view(e).substr(0, colon)) ||
                    !digits(std::string_view(e).substr(colon + 1))) {
                    return "Must be the literal '*' or a list of replicas in the following format: "
                           "[partitionId]:[brokerId],[partitionId]:[brokerId],...";
                }
            }
            return std::nullopt;
        });
}

struct topic_def_table {
    config_def def;
    std::map<std::string, std::string, std::less<>> broker_synonym;
};

topic_def_table build() {
    topic_def_table t;
    auto def = [&t](const char* name, config_type type, default_value dv, validator v,
                    const char* broker_key, const char* doc) {
        t.def.define(config_key{name, type, std::move(dv), std::move(v), importance::medium,
                                update_mode::cluster_wide, doc});
        if (broker_key) {
            t.broker_synonym.emplace(name, broker_key);
        }
    };
    validator none;

    def("cleanup.policy", k_list, "delete", validator::list_of({"compact", "delete"}),
        "log.cleanup.policy",
        "Retention policy for old segments: delete (by time and size), compact (keep the last "
        "record per key), or both.");
    def("compression.type", k_string, "producer", compression_type_validator(), "compression.type",
        "Final compression of the topic's data: uncompressed, gzip, snappy, lz4, zstd, or producer "
        "to keep the producer's codec.");
    def("compression.gzip.level", k_int, "-1", gzip_level_validator(), "compression.gzip.level",
        "Compression level when compression.type is gzip.");
    def("compression.lz4.level", k_int, "9", validator::between(1, 17), "compression.lz4.level",
        "Compression level when compression.type is lz4.");
    def("compression.zstd.level", k_int, "3", validator::between(-131072, 22),
        "compression.zstd.level", "Compression level when compression.type is zstd.");
    def("delete.retention.ms", k_long, "86400000", validator::at_least(0),
        "log.cleaner.delete.retention.ms",
        "How long tombstones are kept in a compacted topic; a consumer reading from offset 0 must "
        "finish within this time to see a consistent snapshot.");
    def("file.delete.delay.ms", k_long, "60000", validator::at_least(0),
        "log.segment.delete.delay.ms",
        "How long a deleted segment's files wait before they are removed from the filesystem.");
    def("flush.messages", k_long, k_long_max, validator::at_least(1), "log.flush.interval.messages",
        "Messages appended before the log is fsynced; by default left to the OS, durability comes "
        "from replication.");
    def("flush.ms", k_long, k_long_max, validator::at_least(0), "log.flush.interval.ms",
        "Milliseconds between forced fsyncs of the log; by default left to the OS.");
    def("follower.replication.throttled.replicas", k_list, "", throttled_replicas_validator(),
        nullptr, "Replicas whose replication is throttled on the follower side, or * for all.");
    def("index.interval.bytes", k_int, "4096", validator::at_least(0), "log.index.interval.bytes",
        "Bytes of log between two offset index entries.");
    def("leader.replication.throttled.replicas", k_list, "", throttled_replicas_validator(),
        nullptr, "Replicas whose replication is throttled on the leader side, or * for all.");
    def("max.compaction.lag.ms", k_long, k_long_max, validator::at_least(1),
        "log.cleaner.max.compaction.lag.ms",
        "Maximum time a record may stay ineligible for compaction.");
    def("max.message.bytes", k_int, "1048588", validator::at_least(0), "message.max.bytes",
        "Largest record batch size the topic accepts (after compression).");
    def("message.downconversion.enable", k_bool, "true", none, "log.message.downconversion.enable",
        "Whether fetches from old consumers may be answered by down-converting record batches.");
    def("message.timestamp.after.max.ms", k_long, k_long_max, validator::at_least(0),
        "log.message.timestamp.after.max.ms",
        "How far in the future a CreateTime timestamp may be, relative to the broker's clock.");
    def("message.timestamp.before.max.ms", k_long, k_long_max, validator::at_least(0),
        "log.message.timestamp.before.max.ms",
        "How far in the past a CreateTime timestamp may be, relative to the broker's clock.");
    def("message.timestamp.difference.max.ms", k_long, k_long_max, validator::at_least(0),
        "log.message.timestamp.difference.max.ms",
        "Deprecated: largest allowed difference between a CreateTime timestamp and the broker's "
        "clock; used for before/after.max.ms while those keep their defaults.");
    def("message.timestamp.type", k_string, "CreateTime",
        validator::one_of({"CreateTime", "LogAppendTime"}), "log.message.timestamp.type",
        "Whether record timestamps are the producer's create time or the broker's append time.");
    def("min.cleanable.dirty.ratio", k_double, "0.5", validator::between(0, 1),
        "log.cleaner.min.cleanable.ratio",
        "Minimum ratio of uncompacted log to total log for the cleaner to compact the topic.");
    def("min.compaction.lag.ms", k_long, "0", validator::at_least(0),
        "log.cleaner.min.compaction.lag.ms", "Minimum time a record stays uncompacted.");
    def("min.insync.replicas", k_int, "1", validator::at_least(1), "min.insync.replicas",
        "Minimum number of in-sync replicas for an acks=all produce to succeed.");
    def("preallocate", k_bool, "false", none, "log.preallocate",
        "Preallocate segment files when they are created.");
    def("retention.bytes", k_long, "-1", none, "log.retention.bytes",
        "Maximum size of a partition's log before old segments are deleted; -1 for no limit.");
    def("retention.ms", k_long, "604800000", validator::at_least(-1), "log.retention.ms",
        "How long a segment is kept before it is deleted; -1 for no time limit.");
    def("segment.bytes", k_int, "1073741824", validator::at_least(14), "log.segment.bytes",
        "Maximum size of one segment file.");
    def("segment.index.bytes", k_int, "10485760", validator::at_least(4),
        "log.index.size.max.bytes", "Maximum size of a segment's offset index.");
    def("segment.jitter.ms", k_long, "0", validator::at_least(0), "log.roll.jitter.ms",
        "Maximum random jitter subtracted from segment.ms, to avoid rolling many segments at "
        "once.");
    def("segment.ms", k_long, "604800000", validator::at_least(1), "log.roll.ms",
        "Maximum age of the active segment before a new one is rolled, even if not full.");
    def("unclean.leader.election.enable", k_bool, "false", none, "unclean.leader.election.enable",
        "Allow a replica outside the ISR to become leader as a last resort, at the risk of losing "
        "data.");
    return t;
}

const topic_def_table& table() {
    static const topic_def_table t = build();
    return t;
}

error config_error(std::string message) {
    return error{error_code::invalid_config, std::move(message)};
}

// The value a topic key takes from the broker, converted to the topic key's unit,
// or null if no synonym is set and none has a default.
config_value broker_value(const config_set& broker, std::string_view broker_key) {
    auto group = broker_synonyms(broker_key);
    if (group.size() > 1) {
        if (auto ms = resolve_synonyms(broker, broker_key)) {
            return *ms;
        }
        return {};
    }
    return broker.get(broker_key);
}

template <typename T>
T as(const std::map<std::string, config_value, std::less<>>& values, std::string_view name) {
    auto it = values.find(name);
    const T* p = it == values.end() ? nullptr : std::get_if<T>(&it->second);
    assert(p && "topic config value missing or of another type");
    return p ? *p : T{};
}

}  // namespace

const config_def& topic_config_def() {
    return table().def;
}

std::optional<std::string> topic_broker_synonym(std::string_view topic_key) {
    const auto& m = table().broker_synonym;
    auto it = m.find(topic_key);
    if (it == m.end()) {
        return std::nullopt;
    }
    return it->second;
}

const topic_config_entry* resolved_topic_config::find(std::string_view name) const {
    for (const auto& e : entries) {
        if (e.name == name) {
            return &e;
        }
    }
    return nullptr;
}

status validate_topic_overrides(const std::map<std::string, std::string>& overrides) {
    const config_def& def = topic_config_def();
    config_value min_lag;
    config_value max_lag;
    for (const auto& [name, raw] : overrides) {
        const config_key* k = def.find(name);
        if (!k) {
            return config_error(fmt::format("Unknown topic config name: {}", name));
        }
        auto v = parse_config_value(*k, raw);
        if (!v) {
            return v.err();
        }
        if (name == "min.compaction.lag.ms") {
            min_lag = *v;
        } else if (name == "max.compaction.lag.ms") {
            max_lag = *v;
        }
    }
    auto* min_p = std::get_if<int64_t>(&min_lag);
    auto* max_p = std::get_if<int64_t>(&max_lag);
    int64_t min = min_p ? *min_p : 0;
    int64_t max = max_p ? *max_p : std::numeric_limits<int64_t>::max();
    if (min > max) {
        return config_error(fmt::format(
            "conflict topic config setting min.compaction.lag.ms ({}) > max.compaction.lag.ms ({})",
            min, max));
    }
    return {};
}

result<resolved_topic_config> resolve_topic_config(
    const std::map<std::string, std::string>& overrides, const config_set& broker) {
    if (auto s = validate_topic_overrides(overrides); !s) {
        return s.err();
    }
    const config_def& def = topic_config_def();
    resolved_topic_config out;
    std::map<std::string, config_value, std::less<>> values;
    for (const config_key* k : def.sorted_keys()) {
        topic_config_entry e;
        e.name = k->name;
        e.type = k->type;
        e.sensitive = k->sensitive();
        e.documentation = k->doc;
        config_value value;
        auto ov = overrides.find(k->name);
        if (ov != overrides.end()) {
            value = *parse_config_value(*k, ov->second);  // validated above
            e.synonyms.push_back({k->name, e.sensitive ? std::nullopt : std::optional(ov->second),
                                  config_source::dynamic_topic_config});
        }
        auto broker_key = topic_broker_synonym(k->name);
        if (broker_key) {
            if (is_null(value)) {
                value = broker_value(broker, *broker_key);
                auto* ms = std::get_if<int64_t>(&value);
                if (k->name == "retention.ms" && ms && *ms < 0) {
                    value = int64_t{-1};
                }
                if (auto reason = k->valid.check(value)) {
                    return config_error(
                        fmt::format("Broker configuration {} gives topic configuration {} the "
                                    "invalid value {}: "
                                    "{}",
                                    *broker_key, k->name, value_to_string(value), *reason));
                }
            }
            std::vector<std::string> names;
            for (const auto& s : broker_synonyms(*broker_key)) {
                names.push_back(s.name);
            }
            for (auto& s : broker.synonyms(names)) {
                e.synonyms.push_back(std::move(s));
            }
        }
        if (is_null(value)) {
            value = *parse_config_value(*k, k->def.raw);
        }
        e.source = e.synonyms.empty() ? config_source::default_config : e.synonyms.front().source;
        if (!e.sensitive) {
            e.value = value_to_string(value);
        }
        values.emplace(k->name, std::move(value));
        out.entries.push_back(std::move(e));
    }

    // Every topic key has a value of its own type here (parsed, or taken from a broker
    // key of a compatible type); as<T> asserts that instead of throwing.
    auto get_long = [&](std::string_view n) { return as<int64_t>(values, n); };
    auto get_int = [&](std::string_view n) { return static_cast<int32_t>(get_long(n)); };
    auto get_bool = [&](std::string_view n) { return as<bool>(values, n); };
    auto get_list = [&](std::string_view n) { return as<list_value>(values, n); };
    auto get_string = [&](std::string_view n) { return as<std::string>(values, n); };

    topic_config& c = out.config;
    c.cleanup_policy = get_list("cleanup.policy");
    for (const auto& p : c.cleanup_policy) {
        c.compact = c.compact || p == "compact";
        c.delete_ = c.delete_ || p == "delete";
    }
    c.compression_type = get_string("compression.type");
    c.compression_gzip_level = get_int("compression.gzip.level");
    c.compression_lz4_level = get_int("compression.lz4.level");
    c.compression_zstd_level = get_int("compression.zstd.level");
    c.delete_retention_ms = get_long("delete.retention.ms");
    c.file_delete_delay_ms = get_long("file.delete.delay.ms");
    c.flush_messages = get_long("flush.messages");
    c.flush_ms = get_long("flush.ms");
    c.follower_replication_throttled_replicas = get_list("follower.replication.throttled.replicas");
    c.index_interval_bytes = get_int("index.interval.bytes");
    c.leader_replication_throttled_replicas = get_list("leader.replication.throttled.replicas");
    c.max_compaction_lag_ms = get_long("max.compaction.lag.ms");
    c.max_message_bytes = get_int("max.message.bytes");
    c.message_downconversion_enable = get_bool("message.downconversion.enable");
    c.timestamp_type = get_string("message.timestamp.type") == "LogAppendTime"
                           ? message_timestamp_type::log_append_time
                           : message_timestamp_type::create_time;
    // Kafka 3.6-3.9: the deprecated difference.max.ms stands in for before/after
    // while they keep their default (Long.MAX_VALUE).
    const int64_t no_limit = std::numeric_limits<int64_t>::max();
    c.message_timestamp_difference_max_ms = get_long("message.timestamp.difference.max.ms");
    c.message_timestamp_before_max_ms = get_long("message.timestamp.before.max.ms");
    if (c.message_timestamp_before_max_ms == no_limit) {
        c.message_timestamp_before_max_ms = c.message_timestamp_difference_max_ms;
    }
    c.message_timestamp_after_max_ms = get_long("message.timestamp.after.max.ms");
    if (c.message_timestamp_after_max_ms == no_limit) {
        c.message_timestamp_after_max_ms = c.message_timestamp_difference_max_ms;
    }
    c.min_cleanable_dirty_ratio = as<double>(values, "min.cleanable.dirty.ratio");
    c.min_compaction_lag_ms = get_long("min.compaction.lag.ms");
    c.min_insync_replicas = get_int("min.insync.replicas");
    c.preallocate = get_bool("preallocate");
    c.retention_bytes = get_long("retention.bytes");
    c.retention_ms = get_long("retention.ms");
    c.segment_bytes = get_int("segment.bytes");
    c.segment_index_bytes = get_int("segment.index.bytes");
    c.segment_jitter_ms = get_long("segment.jitter.ms");
    c.segment_ms = get_long("segment.ms");
    c.unclean_leader_election_enable = get_bool("unclean.leader.election.enable");

    if (c.min_compaction_lag_ms > c.max_compaction_lag_ms) {
        return config_error(fmt::format(
            "conflict topic config setting min.compaction.lag.ms ({}) > max.compaction.lag.ms ({})",
            c.min_compaction_lag_ms, c.max_compaction_lag_ms));
    }
    return out;
}

}  // namespace samsa::config
