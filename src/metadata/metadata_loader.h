#pragma once
// metadata_loader: turns what the metadata log commits into MetadataImages
// (Kafka's MetadataLoader, KIP-500/KIP-630), on every node alike, leader or
// not:
//
//   committed batch -> metadata records -> metadata_delta -> image
//
//   metadata_loader loader(base);
//   loader.handle_commit(batch);            // for each batch Raft commits
//   if (auto img = loader.end_of_commits()) publish(img);
//   if (auto img = loader.load_snapshot(s)) publish(*img);  // a snapshot replaces all
//
// Batches committed together become one image: during a failover hundreds of
// small batches (fencing, ISR changes) commit at once, and every image makes
// each listener walk every partition.
//
// Not thread-safe: it lives on the thread that drives the Raft node.
#include <memory>
#include <optional>

#include "common/result.h"
#include "metadata/metadata_delta.h"
#include "metadata/metadata_image.h"
#include "raft/raft_log.h"

namespace samsa::metadata {

class metadata_loader {
  public:
    // `base`: what records do not carry (the cluster id); also the image
    // before anything committed.
    explicit metadata_loader(std::shared_ptr<const metadata_image> base);

    // A committed batch. Control batches carry no metadata. A batch with a
    // record that does not decode is left out whole, and logged.
    void handle_commit(const raft::raft_batch& batch);
    // The image of every batch since the last call, or nullptr when none came.
    std::shared_ptr<const metadata_image> end_of_commits();
    // A snapshot (KIP-630: header, records, footer) replaces everything
    // applied so far; the image's offset is the last offset it covers.
    result<std::shared_ptr<const metadata_image>> load_snapshot(
        const raft::raft_snapshot& snapshot);

    // The last image built (the base before any).
    const std::shared_ptr<const metadata_image>& image() const { return _image; }
    // Record bytes committed since the last reset_bytes(): the snapshot
    // generator's measure.
    int64_t bytes_since_snapshot() const { return _bytes_since_snapshot; }
    void reset_bytes() { _bytes_since_snapshot = 0; }
    // The end offset and epoch of the last batch built into image().
    int64_t end_offset() const { return _end_offset; }
    raft::raft_epoch epoch() const { return _epoch; }
    // When (wall clock) the last batch was applied here: a snapshot header's
    // last contained log timestamp.
    int64_t last_commit_wall_ms() const { return _last_commit_wall_ms; }

  private:
    std::shared_ptr<const metadata_image> _base;
    std::shared_ptr<const metadata_image> _image;
    std::optional<metadata_delta> _pending;
    int64_t _pending_last_offset = -1;
    int64_t _pending_end_offset = 0;
    raft::raft_epoch _pending_epoch{0};
    int64_t _end_offset = 0;
    raft::raft_epoch _epoch{0};
    int64_t _last_commit_wall_ms = 0;
    int64_t _bytes_since_snapshot = 0;
};

}  // namespace samsa::metadata
