#pragma once
// The seam between the controller and where metadata records go. Today:
// metadata_log appends to the local `__cluster_metadata-0` and fdatasyncs (a
// quorum of one). With the Raft quorum (issue 8) an implementation replicates
// the batch and returns once it is committed; the controller does not change.
//
// Contract: append() is called from the controller thread only, one batch at a
// time; every record of the batch is committed, or none is (one record batch).
// The offsets are consecutive: the batch's first record is at end_offset()
// before the call. A local log is durable when append() returns; a replicated
// one commits later, and when_committed() says when (or that it failed: the
// node stopped leading, and the batch may be lost).
#include <cstdint>
#include <functional>
#include <vector>

#include "common/result.h"
#include "metadata/metadata_record_serde.h"

namespace samsa::metadata {

class metadata_log_writer {
  public:
    virtual ~metadata_log_writer() = default;

    // Appends `records` as one batch; the offset of the last one.
    virtual result<int64_t> append(const std::vector<metadata_record>& records) = 0;
    // The offset the next record will get (the log end offset).
    virtual int64_t end_offset() const = 0;
    // `done` once every offset up to `offset` is committed, on the controller
    // thread (at once for a log that commits on append).
    virtual void when_committed(int64_t offset, std::function<void(status)> done) {
        (void)offset;
        done({});
    }
};

}  // namespace samsa::metadata
