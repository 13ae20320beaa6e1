#include "coordinator/group/group_coordinator_shard.h"

#include "coordinator/group/group_manager.h"

namespace samsa::coordinator {

void group_coordinator_shard::on_loaded() {
    auto loader = std::move(_loader);
    _manager.finish_load(*this, *loader);
}

void group_coordinator_shard::on_unloaded() {
    _manager.unload_partition(*this);
}

}  // namespace samsa::coordinator
