#pragma once
// log_manager: every partition log in a broker's log dirs (Kafka's
// LogManager). Per log dir (layout: docs/formats/checkpoints.md):
//
//   recovery-point-offset-checkpoint   topic partition offset, per log
//   replication-offset-checkpoint      ... the high watermark
//   log-start-offset-checkpoint        ... the log start offset
//   .kafka_cleanshutdown               present only between a clean shutdown
//                                      and the next start: skip recovery
//   <topic>-<partition>/               one storage::log each
//   <topic>-<partition>.<id>-delete/   a deleted partition, removed later
//   <topic>-<partition>.<id>-future/   a replica moving into this dir
//                                      (log_dir_move.cc), resumed at start
//
// Start: each dir's partitions are loaded, recovering from the checkpointed
// recovery point unless the clean-shutdown marker is there (it is then removed,
// so a crash from here on is seen as unclean). A partition that cannot be read
// is recorded as offline with its error and the others load; a log dir that
// cannot be read at all is offline as a whole.
//
// Threading: the manager's maps are guarded by a mutex, so get/create/delete
// and checkpointing may run on any thread. The logs themselves belong to their
// shards: run_retention()/run_flush_checks()/shutdown() call into every log and
// are for the single-shard case and tools; with several shards, each shard runs
// log::delete_old_segments()/flush_if_due() on its own logs (for_each_log gives
// them) and the server schedules that every log.retention.check.interval.ms.
// Checkpoint writes read only the logs' atomic snapshots.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/uuid.h"
#include "storage/deletion_queue.h"
#include "storage/log.h"
#include "storage/log_config.h"
#include "storage/log_dir_health.h"
#include "storage/topic_partition.h"

namespace samsa::storage {

inline constexpr std::string_view clean_shutdown_file = ".kafka_cleanshutdown";

struct log_manager_config {
    std::vector<std::string> log_dirs;  // log.dirs
    log_config defaults;                // the broker-wide log.* settings
    // Topic-level overrides (the metadata image's topic configs); default: defaults.
    std::function<log_config(const std::string& topic)> topic_config;
    int64_t retention_check_interval_ms = 300000;  // log.retention.check.interval.ms
    blocking_executor executor;                    // for log flushes; default inline
    producer_state_config producer_state;          // producer.id.expiration.ms
    // num.recovery.threads.per.data.dir: threads per log dir that open (and
    // recover) its logs at start and close (flush) them at shutdown.
    int32_t recovery_threads_per_dir = 1;
    // Called once per log dir that an I/O error takes offline (any thread).
    log_dir_health::offline_handler on_dir_offline;
};

struct offline_partition {
    topic_partition tp;
    std::string dir;
    error err;
};

struct log_dir_state {
    std::string path;
    bool had_clean_shutdown = false;
    std::optional<error> offline;       // the whole dir is unusable
    std::vector<std::string> warnings;  // e.g. a corrupt checkpoint that was ignored
    // Shared with the dir's logs: a write failure there takes the dir offline
    // (log_dirs() then reports it in `offline`).
    std::shared_ptr<log_dir_health> health;

    bool is_offline() const { return offline || (health && health->offline()); }
};

class log_manager {
  public:
    // Loads every log dir (creating missing ones). Fails only when no log dir
    // is usable.
    static result<std::unique_ptr<log_manager>> open(log_manager_config config, int64_t now_ms);
    ~log_manager();

    std::shared_ptr<log> get(const topic_partition& tp) const;
    // The existing log, or a new one in the log dir holding the fewest
    // partitions. KAFKA_STORAGE_ERROR when the partition is offline,
    // INCONSISTENT_TOPIC_ID when its partition.metadata names another id.
    result<std::shared_ptr<log>> get_or_create(const topic_partition& tp,
                                               std::optional<uuid> topic_id, int64_t now_ms);
    // StopReplica(delete) / topic deletion: closes the log, renames its dir to
    // <topic>-<partition>.<id>-delete and queues it for removal. Call it on the
    // log's owner shard (it closes the log); the owner must drop the log
    // afterwards (any later call returns KAFKA_STORAGE_ERROR, never crashes).
    // UNKNOWN_TOPIC_OR_PARTITION when absent.
    status delete_log(const topic_partition& tp, int64_t now_ms);

    void for_each_log(const std::function<void(const std::shared_ptr<log>&)>& fn) const;
    size_t log_count() const;
    std::vector<offline_partition> offline_partitions() const;
    std::vector<log_dir_state> log_dirs() const;
    // Partitions that cannot take writes now: offline at load, or in a log dir
    // an I/O error took offline since. Cheap when every dir is online.
    std::vector<topic_partition> unwritable_partitions() const;
    // No log dir takes writes any more (Kafka halts the broker then; Samsa
    // gives up its leaderships and keeps answering).
    bool all_dirs_offline() const;

    // Checkpoint files of every online log dir (atomic writes, blocking: run
    // off the reactors).
    status checkpoint_recovery_points();
    status checkpoint_log_start_offsets();
    status checkpoint_high_watermarks();
    status write_checkpoints();

    // Retention over every log (see the threading note above); the number of
    // segments deleted. Failed logs become offline partitions.
    result<int> run_retention(int64_t now_ms);
    void run_flush_checks(int64_t now_ms);
    // Unlinks what file.delete.delay.ms has let go. Any thread.
    status run_pending_deletions(int64_t now_ms) { return _deletions->run_due(now_ms); }
    const std::shared_ptr<deletion_queue>& deletions() const { return _deletions; }
    int64_t retention_check_interval_ms() const { return _config.retention_check_interval_ms; }

    // ---- Moving a replica between log dirs (AlterReplicaLogDirs;
    // log_dir_move.cc, docs/log-dir-moves.md). A future log in the
    // destination dir is filled from the current one on the partition's shard
    // (cluster/log_dir_mover.h) and, once caught up, takes its place.
    //
    // The configured log dir `path` names (compared after resolving both),
    // or LOG_DIR_NOT_FOUND; KAFKA_STORAGE_ERROR when that dir is offline.
    result<std::string> online_log_dir(const std::string& path) const;
    // Where tp's log is created if it does not exist yet (Kafka's preferred
    // log dir: a move asked for before the replica is created).
    void set_preferred_dir(const topic_partition& tp, const std::string& dir);
    // On tp's shard: tp's future log in `dir`, created there when absent (a
    // future log in another dir is dropped first). nullptr when `dir`
    // already holds the current log: any move is then cancelled.
    // REPLICA_NOT_AVAILABLE when tp has no log here; INVALID_TOPIC_EXCEPTION
    // when the future dir's name would be too long.
    result<std::shared_ptr<log>> create_future(const topic_partition& tp, const std::string& dir,
                                               int64_t now_ms);
    std::shared_ptr<log> get_future(const topic_partition& tp) const;
    void for_each_future(const std::function<void(const std::shared_ptr<log>&)>& fn) const;
    // On tp's shard: drops tp's future log (a cancelled move, or the
    // replica left this broker). Nothing when there is none.
    status remove_future(const topic_partition& tp, int64_t now_ms);
    // On tp's shard, with the future log caught up (same log end offset): it
    // takes the current log's name in its own dir and becomes tp's log; the
    // current log is closed and deleted. Returns the new log. A flush in
    // flight on the future log refuses it (KAFKA_STORAGE_ERROR): retry.
    result<std::shared_ptr<log>> replace_current_with_future(const topic_partition& tp,
                                                             int64_t now_ms);

    // Closes every log (flushing it), writes the checkpoints and, in each dir
    // whose logs all closed cleanly, the clean-shutdown marker.
    status shutdown();

  private:
    explicit log_manager(log_manager_config config);
    // Start, in three steps: list each dir (its checkpoints and partition
    // dirs), open every listed log (in parallel: open_logs), then adopt them
    // into the maps in the listing's order.
    struct log_to_open {
        log_open_options options;
        bool future = false;
        result<std::shared_ptr<log>> opened = error{error_code::unknown_server_error, "not opened"};
    };
    std::vector<log_to_open> list_dir(log_dir_state& dir, int64_t now_ms);
    void open_logs(std::vector<std::vector<log_to_open>>& per_dir) const;
    void adopt_logs(log_dir_state& dir, std::vector<log_to_open>& logs, int64_t now_ms);
    // A second current log of tp (a crash between the two renames of
    // replace_current_with_future): the longer log stays, the other goes.
    void resolve_duplicate(const topic_partition& tp, std::shared_ptr<log> found,
                           log_dir_state& dir, int64_t now_ms);
    // After every dir is loaded: future logs whose partition has no current
    // log here are deleted.
    void drop_orphan_futures(int64_t now_ms);
    // The options of a new, empty log of tp in `dir` (a log dir of _dirs).
    log_open_options new_log_options(const topic_partition& tp, const log_dir_state& dir,
                                     std::string log_path, std::optional<uuid> topic_id,
                                     int64_t now_ms) const;
    void for_each_in(const std::map<topic_partition, std::shared_ptr<log>>& logs,
                     const std::function<void(const std::shared_ptr<log>&)>& fn) const;
    log_config config_for(const std::string& topic) const;
    using offsets_of = std::function<int64_t(const log&)>;
    status write_checkpoint_of(std::string_view file_name, const offsets_of& offset);

    log_manager_config _config;
    std::shared_ptr<deletion_queue> _deletions = std::make_shared<deletion_queue>();
    mutable std::mutex _mutex;
    std::vector<log_dir_state> _dirs;
    std::map<topic_partition, std::shared_ptr<log>> _logs;
    std::map<topic_partition, offline_partition> _offline;
    std::map<topic_partition, std::shared_ptr<log>> _futures;
    std::map<topic_partition, std::string> _preferred_dirs;
    bool _shut_down = false;
};

}  // namespace samsa::storage
