#pragma once
// metadata_log: the local metadata log `<metadata.log.dir>/__cluster_metadata-0`
// (docs/architecture.md, "Metadata"), a storage::log of v2 record batches whose records carry
// metadata record frames (metadata/metadata_record_serde.h) as values and null
// keys. One controller change is one batch, so a multi-record change (a topic
// and its partitions) is applied whole or not at all; each append is
// fdatasync'd before it returns ("every change is appended and flushed before
// it is acknowledged"). On start the log is recovered (CRC of every batch, torn
// tail cut) and replayed from its start.
//
// Batches are stamped with partition leader epoch 1: the term of a one-node
// quorum that never held an election. Control batches (Raft's, later) are
// skipped by replay.
//
// Threading: owned by the controller thread after open(); replay() and close()
// run before the controller starts and after it stops.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_log_writer.h"
#include "storage/log.h"

namespace samsa::metadata {

inline constexpr int32_t local_metadata_epoch = 1;

// Opens (creating and recovering) the storage log of `<dir>/__cluster_metadata-0`,
// the Raft log's storage too (raft/storage_raft_log.h).
result<std::shared_ptr<storage::log>> open_metadata_partition(const std::string& dir,
                                                              int64_t now_ms);

class metadata_log final : public metadata_log_writer {
  public:
    // Opens (creating if needed) `<dir>/__cluster_metadata-0`.
    static result<std::unique_ptr<metadata_log>> open(const std::string& dir, int64_t now_ms);
    ~metadata_log() override;

    // Calls `fn(last_offset, records)` for each batch from the log start, in
    // order. Stops at the first error (a record that does not decode, or the
    // error `fn` returns).
    using batch_fn =
        std::function<status(int64_t last_offset, std::vector<metadata_record> records)>;
    status replay(const batch_fn& fn) const;

    result<int64_t> append(const std::vector<metadata_record>& records) override;
    int64_t end_offset() const override;

    const std::string& dir() const;
    status close();

  private:
    explicit metadata_log(std::shared_ptr<storage::log> log) : _log(std::move(log)) {}

    std::shared_ptr<storage::log> _log;
    bool _closed = false;
};

// The image after every batch of the log, applied in order on top of `base`
// (which carries what records do not: cluster id, controller id). A batch that
// does not apply cleanly is an error: the metadata is not what was written.
result<std::shared_ptr<const metadata_image>> replay_image(
    const metadata_log& log, std::shared_ptr<const metadata_image> base);

}  // namespace samsa::metadata
