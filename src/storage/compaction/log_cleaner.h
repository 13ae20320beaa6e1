#pragma once
// log_cleaner: the broker's cleaner threads (Kafka's LogCleaner with its
// LogCleanerManager; docs/compaction.md).
//
// Each round a thread picks, among the logs with cleanup.policy=compact that
// no other thread is cleaning, the one with the highest dirty ratio at or
// above its min.cleanable.dirty.ratio (or whose max.compaction.lag.ms has
// run out), cleans it (cleaner.h) and swaps the result in; with nothing to
// clean it sleeps log.cleaner.backoff.ms. How far each log was cleaned is kept
// in `cleaner-offset-checkpoint` in its log dir (Kafka's format, one
// "<topic> <partition> <offset>" line per log). A log whose cleaning fails is
// logged and left alone (uncleanable) until the broker restarts; the others go
// on.
//
// Threading: logs belong to their shards, so the plan and the swap run there
// through `owner_runner`; reading the old segments and writing the cleaned
// ones happens on the cleaner thread. The offset map is allocated per
// cleaning, no larger than the dirty part needs and at most
// log.cleaner.dedupe.buffer.size / log.cleaner.threads.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "storage/compaction/cleaner.h"
#include "storage/log.h"
#include "storage/log_manager.h"

namespace samsa::storage::compaction {

inline constexpr std::string_view cleaner_checkpoint_file = "cleaner-offset-checkpoint";

struct log_cleaner_config {
    int threads = 1;                                   // log.cleaner.threads
    int64_t dedupe_buffer_size = 128LL * 1024 * 1024;  // log.cleaner.dedupe.buffer.size
    double load_factor = 0.9;                          // log.cleaner.io.buffer.load.factor
    double io_max_bytes_per_second = std::numeric_limits<double>::max();
    int64_t backoff_ms = 15000;  // log.cleaner.backoff.ms

    bool operator==(const log_cleaner_config&) const = default;
};

// Runs `fn` on the thread that owns `l` and waits for it. Returns false,
// possibly before `fn` ran, once `stop` is set: `fn` must then hold what it
// touches by shared_ptr.
using owner_runner =
    std::function<bool(const log& l, std::function<void()> fn, const std::atomic<bool>& stop)>;
// For a single thread (tests, tools): runs `fn` at once.
owner_runner inline_runner();

using wall_clock = std::function<int64_t()>;

// What Kafka's LogCleaner and LogCleanerManager metrics show (docs/metrics.md).
struct cleaner_figures {
    int64_t logs_cleaned = 0;
    int64_t bytes_read = 0;  // totals since start
    int64_t bytes_written = 0;
    // The last cleaning's: its duration, bytes written per byte read, and how
    // full its offset map got (all percentages 0–100).
    double last_clean_time_secs = 0;
    double last_recopy_percent = 0;
    double last_buffer_utilization_percent = 0;
    // The dirty ratio of the log picked last (the filthiest then).
    double max_dirty_percent = 0;
    int64_t last_run_ms = -1;  // wall clock; -1: never ran
    size_t uncleanable_partitions = 0;
};

class log_cleaner {
  public:
    log_cleaner(log_cleaner_config config, log_manager& logs, owner_runner run, wall_clock now);
    ~log_cleaner();
    log_cleaner(const log_cleaner&) = delete;
    log_cleaner& operator=(const log_cleaner&) = delete;

    // Starts the threads (none with log.cleaner.threads=0).
    void start();
    // Stops and joins the threads; a cleaning in progress is abandoned (its
    // .cleaned files are removed on the next load, or overwritten by the next
    // cleaning of the log).
    void stop();
    // Dynamic log.cleaner.* configs (Kafka's LogCleaner.reconfigure): a
    // started cleaner stops its threads, abandoning what they clean, and
    // starts them again with `config`; a stopped one keeps it for its start.
    // Any thread but the cleaner's own.
    void reconfigure(log_cleaner_config config);
    log_cleaner_config config() const;

    // One round on the calling thread: cleans the filthiest log, if one is
    // due. true when a log was cleaned.
    result<bool> clean_once();

    // How far each log was cleaned (the checkpoints' contents).
    std::map<topic_partition, int64_t> cleaned_offsets() const;
    std::set<topic_partition> uncleanable() const;
    // Any thread.
    cleaner_figures figures() const;

  private:
    struct candidate {
        std::shared_ptr<log> l;
        cleaning_plan plan;
    };
    void run_thread(size_t index);
    void start_threads();
    void stop_threads();
    // Picks the log to clean and marks it in progress; nullopt when none is due.
    std::optional<candidate> grab_filthiest(int64_t now_ms);
    result<bool> clean(candidate c, int64_t now_ms);
    void release(const topic_partition& tp);
    void load_checkpoints();
    status write_checkpoint(const std::string& log_dir);
    int64_t first_dirty(const topic_partition& tp) const;

    // Written only while no cleaner thread runs (under _lifecycle_mutex).
    log_cleaner_config _config;
    mutable std::mutex _lifecycle_mutex;
    bool _started = false;
    log_manager& _logs;
    owner_runner _run;
    wall_clock _now;
    std::atomic<bool> _stop{false};
    std::vector<std::thread> _threads;
    std::mutex _sleep_mutex;
    std::condition_variable _wake;

    mutable std::mutex _mutex;  // the maps below
    std::map<topic_partition, int64_t> _cleaned;
    std::set<topic_partition> _in_progress;
    std::set<topic_partition> _uncleanable;
    cleaner_figures _figures;
    std::mutex _select_mutex;  // one selection at a time
};

}  // namespace samsa::storage::compaction
