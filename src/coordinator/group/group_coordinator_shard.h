#pragma once
// group_coordinator_shard: the groups of one __consumer_offsets partition,
// as the coordinator runtime loads and unloads them (Kafka's
// GroupCoordinatorShard). While loading it replays the partition's batches
// into an offsets_loader; once loaded, group_manager serves its groups; on
// resignation they are unloaded (Dead, waiters answered NOT_COORDINATOR).
#include <map>
#include <memory>
#include <set>
#include <string>

#include "coordinator/common/coordinator_runtime.h"
#include "coordinator/group/classic_group.h"
#include "coordinator/group/offsets_loader.h"

namespace samsa::coordinator {

class group_manager;

class group_coordinator_shard final : public coordinator_shard {
  public:
    group_coordinator_shard(group_manager& manager, int32_t partition)
        : _manager(manager), _partition(partition), _loader(std::make_unique<offsets_loader>()) {}

    status replay(bytes_view batch) override { return _loader->apply_batch(batch); }
    void on_loaded() override;
    void on_unloaded() override;

    int32_t partition() const { return _partition; }

    std::map<std::string, std::shared_ptr<classic_group>> groups;
    // Topics deleted while loading: their offsets go once loaded.
    std::set<std::string> deleted_topics;

  private:
    group_manager& _manager;
    int32_t _partition;
    std::unique_ptr<offsets_loader> _loader;  // until loaded
};

}  // namespace samsa::coordinator
