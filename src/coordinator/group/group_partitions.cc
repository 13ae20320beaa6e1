#include "coordinator/group/group_partitions.h"

#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/group_partitioner.h"
#include "coordinator/group/offsets_record_serde.h"

namespace samsa::coordinator {

group_partitions::group_partitions(const group_config& config, cluster::purgatory_driver& driver,
                                   clock_fn wall_clock, coordinator_runtime::shard_factory factory)
    : _config(config),
      _runtime(coordinator_runtime_config{std::string(offsets_topic), config.load_chunk_bytes,
                                          config.offset_commit_timeout_ms},
               driver, std::move(wall_clock), std::move(factory)) {}

int32_t group_partitions::partition_of(const std::string& group_id) const {
    return offsets_partition_for(group_id, _config.offsets_topic_num_partitions);
}

error_code group_partitions::status(const std::string& group_id) const {
    return _runtime.status(partition_of(group_id));
}

group_coordinator_shard* group_partitions::serving(const std::string& group_id) const {
    return loaded(partition_of(group_id));
}

group_coordinator_shard* group_partitions::loaded(int32_t partition) const {
    return static_cast<group_coordinator_shard*>(_runtime.loaded(partition));
}

group_coordinator_shard* group_partitions::any(const std::string& group_id) const {
    return static_cast<group_coordinator_shard*>(_runtime.shard(partition_of(group_id)));
}

void group_partitions::for_each(
    const std::function<void(group_coordinator_shard&, bool)>& fn) const {
    _runtime.for_each([&](int32_t, coordinator_shard& s, bool loading) {
        fn(static_cast<group_coordinator_shard&>(s), loading);
    });
}

error_code group_partitions::append(const std::string& group_id,
                                    std::vector<coordinator_record> records,
                                    const std::optional<txn_producer>& txn) {
    return _runtime.append(partition_of(group_id), records, txn);
}

void group_partitions::when_replicated(const std::string& group_id,
                                       std::function<void(error_code)> done) {
    // Bounded by offsets.commit.timeout.ms, as Kafka bounds every append of
    // the coordinator (commits and group assignments alike).
    _runtime.when_replicated(partition_of(group_id), std::move(done));
}

void group_partitions::write_tombstones(const std::string& group_id,
                                        const std::vector<storage::topic_partition>& offsets,
                                        std::optional<group_type> group_tombstone) {
    std::vector<coordinator_record> records;
    for (const auto& tp : offsets) {
        records.push_back({encode_offset_commit_key(group_id, tp), std::nullopt});
    }
    if (group_tombstone == group_type::classic) {
        records.push_back({encode_group_metadata_key(group_id), std::nullopt});
    } else if (group_tombstone == group_type::consumer) {
        for (auto& r : consumer_group_tombstones(group_id)) {
            records.push_back(std::move(r));
        }
    }
    if (records.empty()) {
        return;
    }
    (void)append(group_id, std::move(records));
}

error_code coordinator_append_error(error_code ec, error_code timed_out, error_code too_large) {
    switch (ec) {
        case error_code::unknown_topic_or_partition:
        case error_code::not_enough_replicas:
        case error_code::not_enough_replicas_after_append:
            return error_code::coordinator_not_available;
        case error_code::not_leader_or_follower:
        case error_code::kafka_storage_error:
            return error_code::not_coordinator;
        case error_code::request_timed_out:
            return timed_out;
        case error_code::message_too_large:
        case error_code::record_list_too_large:
        case error_code::invalid_fetch_size:
            return too_large;
        default:
            return ec;
    }
}

}  // namespace samsa::coordinator
