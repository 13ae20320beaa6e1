#pragma once
// txn_coordinator_shard: the transactional ids of one __transaction_state
// partition, on the coordinator runtime: rebuilt by replaying the partition
// (the last record of an id wins, a tombstone removes it), then served by
// txn_manager, which writes each state change through the runtime and applies
// it here once replicated.
#include <functional>
#include <map>
#include <string>

#include "coordinator/common/coordinator_runtime.h"
#include "coordinator/txn/transaction_metadata.h"

namespace samsa::coordinator::txn {

class txn_coordinator_shard final : public coordinator_shard {
  public:
    using event_fn = std::function<void(txn_coordinator_shard&)>;

    txn_coordinator_shard(int32_t partition, event_fn loaded, event_fn unloaded)
        : _partition(partition), _loaded(std::move(loaded)), _unloaded(std::move(unloaded)) {}

    status replay(bytes_view batch) override;
    void on_loaded() override { _loaded(*this); }
    void on_unloaded() override { _unloaded(*this); }

    int32_t partition() const { return _partition; }
    std::map<std::string, transaction_metadata>& transactions() { return _txns; }
    transaction_metadata* find(const std::string& id) {
        auto it = _txns.find(id);
        return it == _txns.end() ? nullptr : &it->second;
    }
    size_t records_skipped() const { return _skipped; }

  private:
    int32_t _partition;
    event_fn _loaded;
    event_fn _unloaded;
    std::map<std::string, transaction_metadata> _txns;
    size_t _skipped = 0;
};

}  // namespace samsa::coordinator::txn
