#include "cluster/partition_config.h"

namespace samsa::cluster {

partition_config make_partition_config(const config::topic_config& tc) {
    partition_config pc;
    auto& l = pc.log;
    l.segment_bytes = tc.segment_bytes;
    l.segment_ms = tc.segment_ms;
    l.segment_jitter_ms = tc.segment_jitter_ms;
    l.segment_index_bytes = tc.segment_index_bytes;
    l.index_interval_bytes = tc.index_interval_bytes;
    l.retention_ms = tc.retention_ms;
    l.retention_bytes = tc.retention_bytes;
    l.flush_messages = tc.flush_messages;
    l.flush_ms = tc.flush_ms;
    l.file_delete_delay_ms = tc.file_delete_delay_ms;
    l.max_message_bytes = tc.max_message_bytes;
    l.cleanup_delete = tc.delete_;
    l.cleanup_compact = tc.compact;
    l.min_cleanable_dirty_ratio = tc.min_cleanable_dirty_ratio;
    l.min_compaction_lag_ms = tc.min_compaction_lag_ms;
    l.max_compaction_lag_ms = tc.max_compaction_lag_ms;
    l.delete_retention_ms = tc.delete_retention_ms;
    pc.compacted = tc.compact;
    pc.message_timestamp_type = tc.timestamp_type == config::message_timestamp_type::log_append_time
                                    ? record::timestamp_type::log_append_time
                                    : record::timestamp_type::create_time;
    pc.timestamps = {tc.message_timestamp_before_max_ms, tc.message_timestamp_after_max_ms};
    pc.min_insync_replicas = tc.min_insync_replicas;
    pc.leader_throttled_replicas = tc.leader_replication_throttled_replicas;
    pc.follower_throttled_replicas = tc.follower_replication_throttled_replicas;
    if (tc.compression_type == "uncompressed") {
        pc.compression = record::compression::none;
    } else if (tc.compression_type != "producer") {
        pc.compression = record::compression_from_name(tc.compression_type);
    }
    if (pc.compression == record::compression::gzip) {
        pc.compression_level = tc.compression_gzip_level;
    } else if (pc.compression == record::compression::lz4) {
        pc.compression_level = tc.compression_lz4_level;
    } else if (pc.compression == record::compression::zstd) {
        pc.compression_level = tc.compression_zstd_level;
    }
    return pc;
}

}  // namespace samsa::cluster
