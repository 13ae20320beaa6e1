#include "coordinator/txn/transaction_log_serde.h"

#include <map>

#include "coordinator/common/versioned_record.h"
#include "protocol/generated/transaction_log_key.h"
#include "protocol/generated/transaction_log_value.h"

namespace samsa::coordinator::txn {

namespace {

constexpr std::pair<txn_state, const char*> state_names[] = {
    {txn_state::empty, "Empty"},
    {txn_state::ongoing, "Ongoing"},
    {txn_state::prepare_commit, "PrepareCommit"},
    {txn_state::prepare_abort, "PrepareAbort"},
    {txn_state::complete_commit, "CompleteCommit"},
    {txn_state::complete_abort, "CompleteAbort"},
    {txn_state::dead, "Dead"},
    {txn_state::prepare_epoch_fence, "PrepareEpochFence"},
};

}  // namespace

const char* txn_state_name(txn_state s) {
    for (const auto& [state, name] : state_names) {
        if (state == s) {
            return name;
        }
    }
    return "Unknown";
}

std::optional<txn_state> txn_state_from_name(const std::string& name) {
    for (const auto& [state, n] : state_names) {
        if (name == n) {
            return state;
        }
    }
    return std::nullopt;
}

bytes encode_transaction_log_key(const std::string& transactional_id) {
    protocol::transaction_log_key k;
    k.transactional_id = transactional_id;
    return encode_versioned(k, transaction_log_key_version);
}

bytes encode_transaction_log_value(const transaction_metadata& m) {
    protocol::transaction_log_value v;
    v.producer_id = m.producer_id;
    v.producer_epoch = m.producer_epoch;
    v.transaction_timeout_ms = m.txn_timeout_ms;
    v.transaction_status = int8_t(m.state);
    v.transaction_last_update_timestamp_ms = m.txn_last_update_ms;
    v.transaction_start_timestamp_ms = m.txn_start_ms;
    std::vector<protocol::transaction_log_value::partitions_schema> parts;
    for (const auto& tp : m.partitions) {
        if (parts.empty() || parts.back().topic != tp.topic) {
            parts.emplace_back().topic = tp.topic;
        }
        parts.back().partition_ids.push_back(tp.partition);
    }
    v.transaction_partitions = std::move(parts);
    return encode_versioned(v, transaction_log_value_version);
}

result<std::string> decode_transaction_log_key(bytes_view key) {
    protocol::reader r(key);
    const int16_t version = r.read_int16();
    if (!r.ok()) {
        return error(error_code::corrupt_message, "transaction log key too short");
    }
    if (version != 0) {
        return error(error_code::unsupported_version,
                     "transaction log key version " + std::to_string(version));
    }
    auto k = decode_rest<protocol::transaction_log_key>(r, version, "transaction log key");
    if (!k) {
        return k.err();
    }
    return std::move(k->transactional_id);
}

result<transaction_metadata> decode_transaction_log_value(bytes_view value) {
    protocol::reader r(value);
    const int16_t version = r.read_int16();
    if (!r.ok() || version < 0 || version > protocol::transaction_log_value::max_version) {
        return error(error_code::corrupt_message,
                     "transaction log value version " + std::to_string(version));
    }
    auto v = decode_rest<protocol::transaction_log_value>(r, version, "transaction log value");
    if (!v) {
        return v.err();
    }
    if (v->transaction_status < 0 || v->transaction_status > 7) {
        return error(error_code::corrupt_message,
                     "transaction status " + std::to_string(v->transaction_status));
    }
    transaction_metadata m;
    m.producer_id = v->producer_id;
    m.last_producer_id = v->previous_producer_id;
    m.producer_epoch = v->producer_epoch;
    m.txn_timeout_ms = v->transaction_timeout_ms;
    m.state = txn_state(v->transaction_status);
    m.txn_last_update_ms = v->transaction_last_update_timestamp_ms;
    m.txn_start_ms = v->transaction_start_timestamp_ms;
    if (v->transaction_partitions) {
        for (const auto& p : *v->transaction_partitions) {
            for (int32_t id : p.partition_ids) {
                m.partitions.insert(storage::topic_partition{p.topic, id});
            }
        }
    }
    return m;
}

}  // namespace samsa::coordinator::txn
