#include "coordinator/txn/txn_coordinator_shard.h"

#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "coordinator/txn/transaction_log_serde.h"
#include "record/batch_header.h"
#include "record/batch_iterator.h"

namespace samsa::coordinator::txn {

status txn_coordinator_shard::replay(bytes_view batch) {
    auto h = record::decode_batch_header(batch.data());
    if (h.is_control()) {
        return {};
    }
    auto it = record::record_iterator::open(batch);
    if (!it) {
        return it.err();
    }
    record::record r;
    for (;;) {
        auto has = it->next(r);
        if (!has) {
            return has.err();
        }
        if (!*has) {
            return {};
        }
        if (!r.key) {
            ++_skipped;
            continue;
        }
        auto id = decode_transaction_log_key(*r.key);
        if (!id) {
            ++_skipped;
            continue;
        }
        if (!r.value) {
            _txns.erase(*id);
            continue;
        }
        auto m = decode_transaction_log_value(*r.value);
        if (!m) {
            logging::transactions().warn(
                "event=txn_record_skipped partition={} transactional_id=\"{}\" error=\"{}\"",
                _partition, *id, m.err().message);
            ++_skipped;
            continue;
        }
        m->transactional_id = *id;
        _txns[*id] = std::move(*m);
    }
}

}  // namespace samsa::coordinator::txn
