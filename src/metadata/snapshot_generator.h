#pragma once
// snapshot_generator: when to snapshot the metadata log, and what a snapshot
// holds (Kafka's SnapshotGenerator and snapshot writer, KIP-630).
//
// A snapshot is due once metadata.log.max.record.bytes.between.snapshots
// bytes of records have committed since the last one, or
// metadata.log.max.snapshot.interval.ms has passed with any committed (0
// turns the time trigger off).
//
//   snapshot_generator gen(cfg_bytes, cfg_interval);
//   if (gen.due(loader.bytes_since_snapshot(), now)) {
//       auto data = encode_snapshot(*loader.image(), loader.epoch(), ...);
//       ... raft creates the snapshot ...; gen.taken(now); loader.reset_bytes();
//   }
#include <chrono>
#include <cstdint>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_record_serde.h"
#include "raft/raft_log.h"

namespace samsa::metadata {

class snapshot_generator {
  public:
    using clock = std::chrono::steady_clock;

    snapshot_generator(int64_t max_bytes_between, std::chrono::milliseconds max_interval,
                       clock::time_point now = clock::now())
        : _max_bytes(max_bytes_between), _max_interval(max_interval), _last(now) {}

    bool due(int64_t bytes_since_snapshot, clock::time_point now) const {
        if (bytes_since_snapshot >= _max_bytes) {
            return true;
        }
        return _max_interval.count() > 0 && bytes_since_snapshot > 0 &&
               now - _last >= _max_interval;
    }
    void taken(clock::time_point now) { _last = now; }

  private:
    int64_t _max_bytes;
    std::chrono::milliseconds _max_interval;
    clock::time_point _last;
};

// The image as a snapshot's bytes, laid out as Kafka's snapshot writer lays it
// out: a SnapshotHeaderRecord control batch, the image's records in batches of
// up to 1000, and a SnapshotFooterRecord control batch; each a record batch v2
// like the log's, offsets counting from 0 within the snapshot, every batch in
// `epoch`. `last_contained_log_timestamp_ms` goes in the header.
result<bytes> encode_snapshot(const metadata_image& image, raft::raft_epoch epoch,
                              int64_t last_contained_log_timestamp_ms, int64_t now_ms);
// The same layout around any records (bootstrap.checkpoint holds a fresh
// log's first records this way, as Kafka's BootstrapDirectory writes them).
result<bytes> encode_snapshot_records(const std::vector<metadata_record>& records,
                                      raft::raft_epoch epoch,
                                      int64_t last_contained_log_timestamp_ms, int64_t now_ms);

}  // namespace samsa::metadata
