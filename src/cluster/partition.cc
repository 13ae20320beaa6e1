#include "cluster/partition.h"

#include "cluster/replication_quota.h"

#include "common/clock.h"
#include "common/logging/loggers.h"
#include "common/metrics/thread_stats.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "record/batch_builder.h"
#include "record/legacy_message_set.h"

namespace samsa::cluster {

partition::partition(storage::topic_partition tp, uuid topic_id, node_id local_node_id,
                     std::shared_ptr<storage::log> log)
    : _tp(std::move(tp)),
      _tp_name(_tp.to_string()),
      _topic_id(topic_id),
      _local_node_id(local_node_id),
      _log(std::move(log)) {}

void partition::update_registration(const metadata::partition_registration& reg) {
    bool becomes_leader = reg.leader == _local_node_id &&
                          (_leader != _local_node_id || reg.leader_epoch != _leader_epoch);
    const bool stops_leading = _leader == _local_node_id && reg.leader != _local_node_id;
    if (!becomes_leader && _leader == _local_node_id && reg.leader == _local_node_id &&
        metrics::enabled()) {
        // The controller took this leader's AlterPartition: Kafka's
        // IsrShrinksPerSec / IsrExpandsPerSec count it here.
        if (reg.isr.size() < _isr.size()) {
            metrics::local().isr_shrinks.add(1);
        } else if (reg.isr.size() > _isr.size()) {
            metrics::local().isr_expands.add(1);
        }
    }
    log_state_change(reg, becomes_leader, stops_leading);
    if (becomes_leader || stops_leading || reg.partition_epoch != _partition_epoch) {
        // A proposal made at an older partition epoch can no longer commit,
        // and what one did commit is in `reg.isr`.
        _pending_isr_additions.clear();
    }
    _leader = reg.leader;
    _leader_epoch = reg.leader_epoch;
    _partition_epoch = reg.partition_epoch;
    _replicas = reg.replicas;
    _isr = reg.isr;
    if (becomes_leader) {
        // A new leader epoch starts at the log end offset (Kafka assigns it on
        // becoming leader so OffsetForLeaderEpoch can answer for it).
        (void)_log->leader_epochs().assign(_leader_epoch, _log->log_end_offset());
        // Followers' positions are unknown until they fetch in this epoch;
        // the ISR members count as caught up now (Kafka's leader does too).
        _followers.clear();
        const int64_t now = wall_clock_ms();
        for (node_id r : _isr) {
            if (r != _local_node_id) {
                _followers[r].last_caught_up_ms = now;
            }
        }
        _leader_epoch_start_offset = _log->log_end_offset();
        _isr_change_sent_ms = -1;
    }
    if (stops_leading) {
        fail_replication_waiters(error_code::not_leader_or_follower);
        _followers.clear();
    }
    maybe_advance_high_watermark();
}

// Kafka's state.change.logger: one line for each leadership and ISR change
// this replica sees, with what it had before.
void partition::log_state_change(const metadata::partition_registration& reg, bool becomes_leader,
                                 bool stops_leading) const {
    if (becomes_leader) {
        logging::state_change().info(
            "event=became_leader partition={} leader_epoch={} partition_epoch={} "
            "log_end_offset={} high_watermark={} isr={} replicas={} previous_leader={} "
            "previous_leader_epoch={}",
            _tp_name, reg.leader_epoch, reg.partition_epoch, _log->log_end_offset(),
            _log->high_watermark(), fmt::join(reg.isr, ","), fmt::join(reg.replicas, ","), _leader,
            _leader_epoch);
    } else if (reg.leader != _leader || reg.leader_epoch != _leader_epoch) {
        logging::state_change().info(
            "event=became_follower partition={} leader={} leader_epoch={} partition_epoch={} "
            "log_end_offset={} previous_leader={} stopped_leading={}",
            _tp_name, reg.leader, reg.leader_epoch, reg.partition_epoch, _log->log_end_offset(),
            _leader, stops_leading);
    } else if (reg.isr != _isr) {
        logging::state_change().info(
            "event=isr_changed partition={} leader_epoch={} partition_epoch={} isr={} "
            "previous_isr={}",
            _tp_name, reg.leader_epoch, reg.partition_epoch, fmt::join(reg.isr, ","),
            fmt::join(_isr, ","));
    }
}

void partition::update_config(const partition_config& cfg) {
    _config = cfg;
    _log->update_config(cfg.log);
    _log->set_producer_id_expiration_ms(cfg.producer_id_expiration_ms);
    _leader_throttled =
        replica_throttled(cfg.leader_throttled_replicas, _tp.partition, _local_node_id);
    _follower_throttled =
        replica_throttled(cfg.follower_throttled_replicas, _tp.partition, _local_node_id);
}

bool partition::in_isr(node_id replica) const {
    return std::find(_isr.begin(), _isr.end(), replica) != _isr.end();
}

error_code partition::check_leader_epoch(int32_t current_leader_epoch) const {
    if (current_leader_epoch < 0) {
        return error_code::none;
    }
    if (current_leader_epoch < _leader_epoch) {
        return error_code::fenced_leader_epoch;
    }
    if (current_leader_epoch > _leader_epoch) {
        return error_code::unknown_leader_epoch;
    }
    return error_code::none;
}

std::optional<uint64_t> partition::txn_verification_needed(producer_id producer,
                                                           producer_epoch epoch) {
    const auto* e = _log->producer_state().find(producer.value());
    if (e && e->current_txn_first_offset && e->producer_epoch == epoch.value()) {
        return std::nullopt;
    }
    return _log->begin_txn_verification(producer.value());
}

produce_outcome partition::append_records(std::span<uint8_t> records, int16_t produce_version,
                                          int16_t required_acks, int64_t now_ms,
                                          const txn_verification* verification) {
    produce_outcome out;
    if (!is_leader()) {
        out.error = error(error_code::not_leader_or_follower,
                          fmt::format("This broker is not the leader of {}", _tp_name));
        return out;
    }
    auto produced = record::validate_produce_records(records, produce_version);
    if (!produced) {
        out.error = produced.err();
        return out;
    }
    record::validation_options opts;
    opts.origin = record::append_origin::client;
    opts.compacted = _config.compacted;
    opts.max_message_bytes = _config.log.max_message_bytes;
    opts.message_timestamp_type = _config.message_timestamp_type;
    opts.timestamps = _config.timestamps;
    opts.now_ms = now_ms;
    opts.topic_partition = _tp_name;

    // Magic 0/1 (produce v0-v2 from old clients) is up-converted to one v2 batch.
    bytes converted;
    std::span<uint8_t> batch;
    if (produced->magic < record::current_magic) {
        auto set = record::legacy_message_set::parse(produced->data, opts);
        if (!set) {
            out.error = set.err();
            return out;
        }
        // Kafka keeps the wrapper's codec when compression.type is "producer".
        auto v2 =
            record::convert_to_v2(*set, _config.compression.value_or(set->source_compression()),
                                  _config.message_timestamp_type, now_ms);
        if (!v2) {
            out.error = v2.err();
            return out;
        }
        converted = std::move(*v2);
        batch = converted;
    } else {
        if (produced->data.empty()) {
            out.base_offset = _log->log_end_offset();
            out.log_start_offset = _log->log_start_offset();
            return out;
        }
        // The view points into the request frame, which this request owns.
        batch =
            std::span<uint8_t>(const_cast<uint8_t*>(produced->data.data()), produced->data.size());
    }
    auto v = record::validate_batch(batch, opts);
    if (!v.ok()) {
        out.error = v.error;
        out.record_errors = std::move(v.record_errors);
        return out;
    }
    // compression.type other than "producer": the batch is stored with the
    // topic's codec, as Kafka's LogValidator recompresses it.
    if (_config.compression && produced->magic == record::current_magic &&
        record::decode_batch_header(batch.data()).compression() != *_config.compression) {
        auto re = record::recompress_batch(batch, *_config.compression, _config.compression_level);
        if (!re) {
            out.error = re.err();
            return out;
        }
        converted = std::move(*re);
        batch = converted;
    }
    if (verification && batch.size() >= record::batch_header_size) {
        const auto h = record::decode_batch_header(batch.data());
        if (h.is_transactional() && h.has_producer_id()) {
            const auto* e = _log->producer_state().find(h.producer_id);
            const bool open =
                e && e->current_txn_first_offset && e->producer_epoch == h.producer_epoch;
            if (!open &&
                (verification->producer_id != h.producer_id ||
                 !_log->producer_state().is_verified(h.producer_id, verification->guard))) {
                out.error = error(error_code::invalid_txn_state,
                                  fmt::format("Producer {} has no ongoing transaction that holds "
                                              "partition {}",
                                              h.producer_id, _tp_name));
                return out;
            }
        }
    }
    if (required_acks == -1 && int32_t(_isr.size()) < _config.min_insync_replicas) {
        out.error = error(error_code::not_enough_replicas,
                          fmt::format("The size of the current ISR {} is insufficient to satisfy "
                                      "the min.isr requirement of {} for partition {}",
                                      _isr.size(), _config.min_insync_replicas, _tp_name));
        return out;
    }
    if (auto st = record::set_max_timestamp(
            batch, _config.message_timestamp_type,
            _config.message_timestamp_type == record::timestamp_type::log_append_time
                ? now_ms
                : v.max_timestamp);
        !st) {
        out.error = st.err();
        return out;
    }
    auto appended =
        _log->append_as_leader(batch, _leader_epoch, now_ms, record::append_origin::client);
    if (!appended) {
        out.error = idempotent_produce_error(appended.err());
        return out;
    }
    maybe_advance_high_watermark();
    out.base_offset = appended->first_offset;
    out.last_offset = appended->last_offset;
    out.log_start_offset = appended->log_start_offset;
    if (appended->duplicate) {
        // A retry of a batch already written (idempotent producer): Kafka
        // answers with the original offsets and that batch's timestamp as the
        // log append time, whatever the topic's timestamp type.
        out.log_append_time_ms = appended->log_append_time_ms;
    } else if (_config.message_timestamp_type == record::timestamp_type::log_append_time) {
        out.log_append_time_ms = now_ms;
    }
    return out;
}

// ---- idempotent producer errors (issue 7) ----
// The log returns Kafka's codes for producer state violations:
// OUT_OF_ORDER_SEQUENCE_NUMBER (a gap, or a new epoch not starting at 0),
// INVALID_PRODUCER_EPOCH (an epoch older than the producer's). Since Kafka 2.7
// (KAFKA-10687) a Produce response never carries PRODUCER_FENCED, which older
// clients do not know: it becomes INVALID_PRODUCER_EPOCH. UNKNOWN_PRODUCER_ID
// is not produced for idempotent producers (KIP-360: a producer the partition
// has no state for may start at any sequence).
error partition::idempotent_produce_error(const error& e) {
    if (e.code == error_code::producer_fenced) {
        return error(error_code::invalid_producer_epoch, e.message);
    }
    return e;
}

produce_outcome partition::append_internal(std::span<uint8_t> batch, int64_t now_ms) {
    produce_outcome out;
    if (!is_leader()) {
        out.error = error_code::not_leader_or_follower;
        return out;
    }
    record::validation_options opts;
    opts.origin = record::append_origin::coordinator;
    opts.compacted = _config.compacted;
    opts.max_message_bytes = _config.log.max_message_bytes;
    opts.message_timestamp_type = _config.message_timestamp_type;
    opts.now_ms = now_ms;
    opts.topic_partition = _tp_name;
    auto v = record::validate_batch(batch, opts);
    if (!v.ok()) {
        out.error = v.error;
        return out;
    }
    auto appended =
        _log->append_as_leader(batch, _leader_epoch, now_ms, record::append_origin::coordinator);
    if (!appended) {
        out.error = appended.err();
        return out;
    }
    maybe_advance_high_watermark();
    out.base_offset = appended->first_offset;
    out.last_offset = appended->last_offset;
    out.log_start_offset = appended->log_start_offset;
    return out;
}

fetch_outcome partition::read(kafka_offset fetch_offset, int64_t max_bytes,
                              isolation_level isolation, bool min_one_message,
                              samsa::leader_epoch current, bool from_follower_replica) const {
    const int64_t offset = fetch_offset.value();
    const int32_t current_leader_epoch = current.value();
    fetch_outcome out;
    out.high_watermark = high_watermark();
    out.last_stable_offset = last_stable_offset();
    out.log_start_offset = _log->log_start_offset();
    const bool follower_may_serve =
        from_follower_replica && _leader.is_valid() && contains(_replicas, _local_node_id);
    if (!is_leader() && !follower_may_serve) {
        out.error = error_code::not_leader_or_follower;
        return out;
    }
    if (auto ec = check_leader_epoch(current_leader_epoch); ec != error_code::none) {
        out.error = ec;
        return out;
    }
    int64_t bound =
        isolation == isolation_level::read_committed ? last_stable_offset() : high_watermark();
    auto r = _log->read(fetch_offset, max_bytes, kafka_offset{bound}, min_one_message);
    if (!r) {
        out.error = r.err();
        if (out.error.code == error_code::offset_out_of_range && is_leader() &&
            offset > _log->log_end_offset() && _lease && !_lease->held()) {
            // Most likely read from a leader the controller elected while
            // this broker could not hear of it (cluster/leadership_lease.h):
            // a retriable answer, where OFFSET_OUT_OF_RANGE would reset the
            // consumer to auto.offset.reset.
            out.error = error(error_code::not_leader_or_follower,
                              fmt::format("This broker's leadership of {} is not confirmed: no "
                                          "heartbeat acknowledged within "
                                          "broker.session.timeout.ms, and offset {} is above "
                                          "its log end {}",
                                          _tp_name, offset, _log->log_end_offset()));
        }
        return out;
    }
    out.records = std::move(r->records);
    out.log_start_offset = r->log_start_offset;
    if (isolation == isolation_level::read_committed && !out.records.empty()) {
        out.aborted_transactions = _log->aborted_transactions(offset, bound);
    }
    return out;
}

list_offsets_outcome partition::list_offsets(int64_t timestamp, isolation_level isolation,
                                             samsa::leader_epoch current_leader_epoch) const {
    list_offsets_outcome out;
    if (!is_leader()) {
        out.error = error_code::not_leader_or_follower;
        return out;
    }
    if (auto ec = check_leader_epoch(current_leader_epoch.value()); ec != error_code::none) {
        out.error = ec;
        return out;
    }
    const int64_t bound =
        isolation == isolation_level::read_committed ? last_stable_offset() : high_watermark();
    // A new leader's high watermark may still lag the offset its epoch began
    // at (KIP-207): "latest", or a time past what is fetchable, would then
    // answer an end below what consumers already read from the old leader.
    auto lagging = [&]() -> std::optional<samsa::error> {
        if (_leader_epoch_start_offset <= high_watermark()) {
            return std::nullopt;
        }
        return samsa::error(
            error_code::offset_not_available,
            fmt::format("Failed to fetch offsets for partition {} with leader epoch {} as this "
                        "partition's high watermark ({}) is lagging behind the start offset from "
                        "the beginning of this epoch ({}).",
                        _tp_name, _leader_epoch, high_watermark(), _leader_epoch_start_offset));
    };
    if (timestamp == storage::latest_timestamp) {
        if (auto e = lagging()) {
            out.error = *e;
            return out;
        }
        // Consumers see the high watermark (or LSO) as the end, not the LEO.
        out.offset = bound;
        auto epoch = _log->leader_epochs().latest_epoch();
        out.leader_epoch = epoch.value_or(-1);
        return out;
    }
    auto found = _log->offset_for_timestamp(timestamp);
    if (!found) {
        out.error = found.err();
        return out;
    }
    const bool from_log_start =
        timestamp == storage::earliest_timestamp || timestamp == storage::earliest_local_timestamp;
    if (!*found || ((**found).offset >= bound && !from_log_start)) {
        if (!from_log_start) {
            if (auto e = lagging()) {
                out.error = *e;
                return out;
            }
        }
        // Nothing at or after the timestamp below the bound: Kafka answers -1/-1.
        return out;
    }
    out.timestamp = (**found).timestamp;
    out.offset = (**found).offset;
    out.leader_epoch = (**found).leader_epoch.value_or(-1);
    return out;
}

epoch_end_offset_outcome partition::end_offset_for_epoch(samsa::leader_epoch current_leader_epoch,
                                                         samsa::leader_epoch epoch) const {
    epoch_end_offset_outcome out;
    if (!is_leader()) {
        out.error = error_code::not_leader_or_follower;
        return out;
    }
    if (auto ec = check_leader_epoch(current_leader_epoch.value()); ec != error_code::none) {
        out.error = ec;
        return out;
    }
    auto e = _log->leader_epochs().end_offset_for(epoch.value(), _log->log_end_offset());
    out.leader_epoch = e.epoch;
    out.end_offset = e.start_offset;
    return out;
}

result<int64_t> partition::delete_records(int64_t offset, int64_t now_ms) {
    if (!is_leader()) {
        return error_code::not_leader_or_follower;
    }
    // KIP-107: Kafka's Partition.deleteRecordsOnLeader refuses a log whose
    // cleanup.policy lacks "delete" (pure compact), before looking at the
    // offset: moving the log start offset would drop keys compaction is meant
    // to keep. "compact,delete" still allows it. The check lives here rather
    // than in storage::log because the metadata log moves its start offset
    // through the same log call.
    if (!_log->config().cleanup_delete) {
        return error{error_code::policy_violation,
                     "Records of partition " + _tp.to_string() +
                         " can not be deleted due to the configured policy"};
    }
    if (offset == -1) {
        offset = high_watermark();
    }
    if (offset < 0) {
        return error_code::offset_out_of_range;
    }
    return _log->delete_records_before(offset, now_ms);
}

}  // namespace samsa::cluster
