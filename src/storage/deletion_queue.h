#pragma once
// deletion_queue: files waiting out file.delete.delay.ms before they are
// unlinked, as Kafka defers deletes. Retention, truncation and partition
// deletion rename what they drop (<segment>.deleted, <dir>.<id>-delete) on the
// owner's shard, which is cheap, and queue it here; whoever runs background
// work calls run_due(now) off the reactors, which does the blocking unlinks.
// A fetch that still holds a file_slice of a deleted segment keeps reading it:
// unlinking never invalidates an open fd.
//
// Thread-safe: schedule() from any shard, run_due() from any thread.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/result.h"

namespace samsa::storage {

class log_segment;

class deletion_queue {
  public:
    void schedule(std::shared_ptr<log_segment> segment, int64_t due_ms);
    // A whole directory tree (a deleted partition).
    void schedule_dir(std::string path, int64_t due_ms);
    // Deletes everything due at `now_ms`; on failures keeps going and returns
    // the first error. Items are taken off the queue either way.
    status run_due(int64_t now_ms);
    status run_all();
    size_t pending() const;

  private:
    struct item {
        int64_t due_ms;
        std::shared_ptr<log_segment> segment;
        std::string dir;
    };
    mutable std::mutex _mutex;
    std::vector<item> _items;
};

}  // namespace samsa::storage
