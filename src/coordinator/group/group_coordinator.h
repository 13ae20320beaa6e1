#pragma once
// group_coordinator: the entry point of the group coordinator on this broker
// (docs/architecture.md, "Coordinators"). It owns a group_manager per reactor shard and routes each
// request to the manager of the shard that owns the group's
// __consumer_offsets partition (group_partitioner.h): the handler's
// coroutine hops there, the work runs on that shard (possibly waiting, for
// JoinGroup and SyncGroup), and the handler resumes on its own reactor with
// the answer. One hop per request; the group's state never leaves its shard.
//
// It also listens for leadership of __consumer_offsets partitions (the
// replica manager tells the owning shard, which loads or unloads the
// partition's groups) and for deleted topics (their committed offsets go).
//
// Lifecycle: construct after the replica manager exists and before any
// metadata image is applied (the listener must see the first elections);
// destroy after the reactors stopped and before the replica manager.
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/purgatory/purgatory_driver.h"
#include "cluster/replica_manager.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_manager.h"
#include "metadata/metadata_cache.h"

namespace samsa::coordinator {

// The group APIs, for request counts.
enum class group_api : uint8_t {
    find_coordinator,
    join_group,
    sync_group,
    heartbeat,
    leave_group,
    offset_commit,
    offset_fetch,
    offset_delete,
    list_groups,
    describe_groups,
    delete_groups,
    consumer_group_heartbeat,
    consumer_group_describe,
    count_,
};

class group_coordinator {
  public:
    group_coordinator(group_config config, cluster::replica_manager& replicas,
                      const metadata::metadata_cache& metadata);
    ~group_coordinator();
    group_coordinator(const group_coordinator&) = delete;
    group_coordinator& operator=(const group_coordinator&) = delete;

    const group_config& config() const { return _config; }
    // The __consumer_offsets partition of a group.
    int32_t partition_for(const std::string& group_id) const;

    // ---- requests (from any reactor; each resumes on the caller's reactor)
    asio::awaitable<join_group_result> join_group(const join_group_params& req,
                                                  const request_origin& origin);
    asio::awaitable<sync_group_result> sync_group(const sync_group_params& req,
                                                  const request_origin& origin);
    asio::awaitable<error_code> heartbeat(const heartbeat_params& req);
    asio::awaitable<leave_group_result> leave_group(const std::string& group_id,
                                                    const std::vector<leaving_member>& members);
    // With `txn`: TxnOffsetCommit (pending until the producer's marker).
    // `api_version`: the request's.
    asio::awaitable<error_code> commit_offsets(const std::string& group_id, int32_t generation_id,
                                               const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id,
                                               std::vector<offset_commit_item>& items,
                                               int16_t api_version,
                                               std::optional<txn_producer> txn = std::nullopt);
    // A transaction marker was written to `partition` of __consumer_offsets
    // (WriteTxnMarkers): the producer's pending offsets there are decided.
    asio::awaitable<void> complete_txn(int32_t partition, int64_t producer_id, bool commit);
    // `member_id` / `member_epoch`: OffsetFetch v9+ (KIP-848).
    asio::awaitable<offset_fetch_result> fetch_offsets(
        const std::string& group_id,
        const std::optional<std::vector<storage::topic_partition>>& partitions, bool require_stable,
        const std::optional<std::string>& member_id = std::nullopt, int32_t member_epoch = -1);
    // KIP-848: ConsumerGroupHeartbeat and ConsumerGroupDescribe.
    asio::awaitable<consumer_group_heartbeat_result> consumer_group_heartbeat(
        const consumer_group_heartbeat_params& req, const request_origin& origin);
    asio::awaitable<described_consumer_group> consumer_group_describe(const std::string& group_id);
    asio::awaitable<error_code> delete_offsets(const std::string& group_id,
                                               std::vector<offset_delete_item>& items);
    // Every group this broker coordinates; `loading` when some partition is
    // still loading (ListGroups answers COORDINATOR_LOAD_IN_PROGRESS then).
    asio::awaitable<std::vector<listed_group>> list_groups(const list_groups_filter& filter,
                                                           bool& loading);
    asio::awaitable<described_group> describe_group(const std::string& group_id);
    asio::awaitable<error_code> delete_group(const std::string& group_id);

    // Any thread (the controller's image listener): topics in `prev` that are
    // gone from `next` lose their committed offsets.
    void on_metadata_changed(const metadata::metadata_image& prev,
                             const metadata::metadata_image& next);

    // ---- observation
    void count(group_api api) { _counts[size_t(api)].fetch_add(1, std::memory_order_relaxed); }
    uint64_t requests(group_api api) const {
        return _counts[size_t(api)].load(std::memory_order_relaxed);
    }
    uint64_t requests_total() const;
    // One line with the count of every group API, for the log.
    std::string request_counts() const;

    // Every manager's runtime tells `fn` of its appends (the fetch waiters).
    void set_append_listener(const std::function<void(const storage::topic_partition&)>& fn) {
        for (auto& m : _managers) {
            m->runtime().set_append_listener(fn);
        }
    }

  private:
    // The shard of the group's partition, or nullopt when __consumer_offsets
    // does not exist (NOT_COORDINATOR).
    std::optional<size_t> shard_for(const std::string& group_id) const;
    void on_leadership(size_t shard, const storage::topic_partition& tp, cluster::partition* p,
                       bool is_leader);

    // Runs fn(manager, callback) on `shard`; resumes with what the callback
    // gets. `fn` is taken by reference (it lives in the caller's frame until
    // the callback fires) and must only capture references.
    template <typename Resp, typename Fn>
    asio::awaitable<Resp> call_with_callback(size_t shard, Fn& fn);

    group_config _config;
    cluster::replica_manager& _replicas;
    const metadata::metadata_cache& _metadata;
    std::vector<std::unique_ptr<cluster::purgatory_driver>> _drivers;
    std::vector<std::unique_ptr<group_manager>> _managers;
    std::array<std::atomic<uint64_t>, size_t(group_api::count_)> _counts{};
};

}  // namespace samsa::coordinator
