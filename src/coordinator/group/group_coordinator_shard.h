#pragma once
// group_coordinator_shard: the groups of one __consumer_offsets partition,
// as the coordinator runtime loads and unloads them (Kafka's
// GroupCoordinatorShard). While loading it replays the partition's batches
// into an offsets_loader; once loaded, group_metadata_manager serves its
// groups and offset_metadata_manager their offsets; on resignation they are
// unloaded (Dead, waiters answered NOT_COORDINATOR). What loading and
// unloading do is the managers', handed in by group_manager as callbacks.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "coordinator/common/coordinator_runtime.h"
#include "coordinator/group/classic_group.h"
#include "coordinator/group/group.h"
#include "coordinator/group/offsets_loader.h"

namespace samsa::coordinator {

class group_coordinator_shard final : public coordinator_shard {
  public:
    using loaded_fn = std::function<void(group_coordinator_shard&, offsets_loader&)>;
    using unloaded_fn = std::function<void(group_coordinator_shard&)>;

    group_coordinator_shard(int32_t partition, loaded_fn loaded, unloaded_fn unloaded)
        : _partition(partition),
          _loaded(std::move(loaded)),
          _unloaded(std::move(unloaded)),
          _loader(std::make_unique<offsets_loader>()) {}

    status replay(bytes_view batch) override { return _loader->apply_batch(batch); }
    void on_loaded() override {
        auto loader = std::move(_loader);
        _loaded(*this, *loader);
    }
    void on_unloaded() override { _unloaded(*this); }

    int32_t partition() const { return _partition; }

    // Every group of the partition, classic and consumer (KIP-848) alike.
    std::map<std::string, shared_group> groups;
    // Topics deleted while loading: their offsets go once loaded.
    std::set<std::string> deleted_topics;
    // TxnOffsetCommit: offsets written by a producer whose transaction is
    // not decided yet; its COMMIT marker makes them the group's, its ABORT
    // marker drops them (KIP-98).
    using txn_offset_key = std::pair<std::string, storage::topic_partition>;
    std::map<int64_t, std::map<txn_offset_key, offset_and_metadata>> pending_txn_offsets;

  private:
    int32_t _partition;
    loaded_fn _loaded;
    unloaded_fn _unloaded;
    std::unique_ptr<offsets_loader> _loader;  // until loaded
};

}  // namespace samsa::coordinator
