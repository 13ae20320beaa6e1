#pragma once
// Runs per-partition work on the partitions' owning shards (docs/architecture.md, "Threads"):
// items are grouped by shard and each group is processed in one hop, in order.
// `fn(cluster::partition* p, Item& item)` runs on the owning shard with the
// local partition (nullptr when this broker does not host it) and records its
// result in the item; the caller resumes on its own reactor afterwards.
#include <asio/awaitable.hpp>
#include <map>
#include <vector>

#include "cluster/replica_manager.h"

namespace samsa::server {

// Item must have `size_t shard` and `storage::topic_partition tp`.
// Pass a named callable (see replica_manager::run_on_shard on GCC 12).
template <typename Item, typename Fn>
asio::awaitable<void> dispatch_to_shards(cluster::replica_manager& rm, std::vector<Item>& items,
                                         const Fn& fn) {
    std::map<size_t, std::vector<Item*>> by_shard;
    for (auto& it : items) {
        by_shard[it.shard].push_back(&it);
    }
    for (auto& entry : by_shard) {
        // Named, not bound: clang 14 (the fuzz build) cannot capture bindings.
        const size_t shard = entry.first;
        auto& group = entry.second;
        auto run_group = [&rm, shard, &group, &fn] {
            for (Item* it : group) {
                fn(rm.get(shard, it->tp), *it);
            }
            return true;
        };
        co_await rm.run_on_shard<bool>(shard, run_group);
    }
}

}  // namespace samsa::server
