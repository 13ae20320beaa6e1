#pragma once
// coordinator_runtime: what every coordinator built on an internal topic
// shares (Kafka's CoordinatorRuntime, KIP-848's rewrite of the group
// coordinator): one state machine per partition of the topic this shard
// leads, loaded by replaying the partition when it is elected, written through
// appends that count once replicated, and unloaded when it resigns.
//
//   on_elected(p, log)  -> loading: the log is read in chunks posted to the
//                          shard's executor (other work runs between them),
//                          each whole batch handed to shard->replay(); then
//                          shard->on_loaded() and the partition serves;
//   on_resigned(p)      -> shard->on_unloaded() (answer every waiter
//                          NOT_COORDINATOR), then the shard is destroyed.
//
// A request for a partition that is loading gets COORDINATOR_LOAD_IN_PROGRESS,
// one this shard does not lead NOT_COORDINATOR (status()). The group
// coordinator (__consumer_offsets, coordinator/group/) runs on it; the
// transaction coordinator (__transaction_state, coordinator/txn/) is next.
//
// Threading: one runtime per reactor shard, used only on that shard's thread
// (its purgatory driver's executor). Timers go through the same driver.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/partition.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "common/bytes.h"
#include "common/error.h"
#include "common/result.h"

namespace samsa::coordinator {

// One partition's state machine (Kafka's CoordinatorShard).
class coordinator_shard {
  public:
    virtual ~coordinator_shard() = default;
    // One whole record batch (v2) of the partition's log, in offset order,
    // while loading. An error skips the batch (logged); loading goes on.
    virtual status replay(bytes_view batch) = 0;
    // The log is replayed: the partition serves from now on.
    virtual void on_loaded() = 0;
    // The partition resigned (or is reloaded): whatever waits on its state
    // is answered (NOT_COORDINATOR). The shard is destroyed right after.
    virtual void on_unloaded() = 0;
};

// A record the coordinator writes: a key, and a value or a tombstone.
struct coordinator_record {
    bytes key;
    std::optional<bytes> value;  // nullopt: tombstone
};

// The producer a transactional append writes for (TxnOffsetCommit: the
// offsets count only once that producer's COMMIT marker reaches the partition).
struct txn_producer {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
};

struct coordinator_runtime_config {
    std::string topic;                   // for logs: "__consumer_offsets"
    int64_t load_chunk_bytes = 1 << 20;  // how much of the log one load step reads
    // How long an append may wait for the ISR (offsets.commit.timeout.ms for
    // groups): REQUEST_TIMED_OUT after it.
    int32_t append_timeout_ms = 5000;
};

class coordinator_runtime {
  public:
    using clock_fn = std::function<int64_t()>;
    using shard_factory = std::function<std::unique_ptr<coordinator_shard>(int32_t partition)>;

    coordinator_runtime(coordinator_runtime_config config, cluster::purgatory_driver& driver,
                        clock_fn wall_clock, shard_factory make_shard);
    ~coordinator_runtime();
    coordinator_runtime(const coordinator_runtime&) = delete;
    coordinator_runtime& operator=(const coordinator_runtime&) = delete;

    // ---- partition lifecycle (the replica manager's leadership listener)
    // This shard now leads `partition` of the topic: load it. Already loaded
    // (a new leader epoch while it stayed leader): every record went through
    // the loaded state, which is therefore current, and only the log changes.
    void on_elected(int32_t partition, cluster::partition* log);
    void on_resigned(int32_t partition);

    // NONE when loaded, COORDINATOR_LOAD_IN_PROGRESS while loading, else
    // NOT_COORDINATOR.
    error_code status(int32_t partition) const;
    // Whether the published metadata already names this broker the leader
    // of `partition`: its election reaches this shard a moment later (the
    // replica manager applies images asynchronously), and until then
    // requests hear COORDINATOR_LOAD_IN_PROGRESS, as from Kafka while a
    // partition is becoming leader, rather than NOT_COORDINATOR.
    void set_becoming_leader(std::function<bool(int32_t partition)> fn) {
        _becoming_leader = std::move(fn);
    }
    // Called on this shard after every append, with the partition written:
    // the followers' fetches waiting on it are woken at once (as Kafka's
    // ReplicaManager completes delayed fetches after any append), so a
    // coordinator write is replicated within a round trip, not after
    // replica.fetch.wait.max.ms.
    void set_append_listener(std::function<void(const storage::topic_partition&)> fn) {
        _append_listener = std::move(fn);
    }
    bool is_loading(int32_t partition) const;
    bool is_loaded(int32_t partition) const;
    bool any_loading() const;

    // The partition's state machine once loaded, else nullptr.
    coordinator_shard* loaded(int32_t partition) const;
    // Loaded or loading, else nullptr (e.g. to note what must happen once
    // loaded).
    coordinator_shard* shard(int32_t partition) const;
    // fn(partition, shard, loading) for every partition this shard leads.
    void for_each(const std::function<void(int32_t, coordinator_shard&, bool)>& fn) const;

    // ---- writes
    // Appends the records as one batch to the partition's log (a loaded
    // partition only: NOT_LEADER_OR_FOLLOWER otherwise). The append's error.
    // With `producer`, the batch is transactional and carries its id and epoch.
    error_code append(int32_t partition, const std::vector<coordinator_record>& records,
                      const std::optional<txn_producer>& producer = std::nullopt);
    // `done` (on this shard) once everything appended to the partition so far
    // is on every ISR replica (at once with a single one), REQUEST_TIMED_OUT
    // after append_timeout_ms, NOT_COORDINATOR when it does not lead it.
    void when_replicated(int32_t partition, std::function<void(error_code)> done);

  private:
    struct state {
        cluster::partition* log = nullptr;
        bool loading = true;
        uint64_t election = 0;  // a stale load step stops
        std::unique_ptr<coordinator_shard> shard;
    };

    void load_step(int32_t partition, uint64_t election, int64_t next_offset);
    void post_load_step(int32_t partition, uint64_t election, int64_t next_offset);
    void finish_load(int32_t partition, state& s);

    coordinator_runtime_config _config;
    cluster::purgatory_driver& _driver;
    clock_fn _wall_clock;
    shard_factory _make_shard;
    std::function<bool(int32_t)> _becoming_leader;
    std::function<void(const storage::topic_partition&)> _append_listener;
    std::map<int32_t, state> _partitions;
    uint64_t _elections = 0;
    // Expires with the runtime, for load steps posted but not run yet.
    std::shared_ptr<char> _alive = std::make_shared<char>();
};

}  // namespace samsa::coordinator
