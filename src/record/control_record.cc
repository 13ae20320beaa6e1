#include "record/control_record.h"

#include <string>

#include "record/batch_builder.h"

namespace samsa::record {

result<control_record_type> parse_control_record_key(const std::optional<bytes_view>& key) {
    if (!key || key->size() < control_record_key_size) {
        return error(error_code::invalid_record,
                     "Invalid value size found for end control record key. Must have at least " +
                         std::to_string(control_record_key_size) + " bytes, but found only " +
                         std::to_string(key ? key->size() : 0));
    }
    int16_t type = int16_t(load_be16(key->data() + 2));
    if (type < 0 || type > int16_t(control_record_type::kraft_voters)) {
        return control_record_type::unknown;
    }
    return control_record_type(type);
}

bytes encode_control_record_key(control_record_type type) {
    bytes key(control_record_key_size);
    store_be16(key.data(), 0);
    store_be16(key.data() + 2, uint16_t(type));
    return key;
}

result<end_txn_marker> parse_end_txn_marker(const record& r) {
    auto type = parse_control_record_key(r.key);
    if (!type) {
        return type.err();
    }
    if (*type != control_record_type::abort && *type != control_record_type::commit) {
        return error(error_code::invalid_record,
                     "Invalid control record type for end transaction marker: " +
                         std::to_string(int(*type)));
    }
    if (!r.value || r.value->size() < end_txn_marker_value_size) {
        return error(error_code::invalid_record,
                     "Invalid value size found for end transaction marker. Must have at least " +
                         std::to_string(end_txn_marker_value_size) + " bytes, but found only " +
                         std::to_string(r.value ? r.value->size() : 0));
    }
    end_txn_marker m;
    m.commit = *type == control_record_type::commit;
    m.coordinator_epoch = int32_t(load_be32(r.value->data() + 2));
    return m;
}

bytes encode_end_txn_marker_value(int32_t coordinator_epoch) {
    bytes value(end_txn_marker_value_size);
    store_be16(value.data(), 0);
    store_be32(value.data() + 2, uint32_t(coordinator_epoch));
    return value;
}

bytes build_end_txn_marker_batch(int64_t producer_id, int16_t producer_epoch,
                                 const end_txn_marker& marker, int64_t timestamp,
                                 int32_t partition_leader_epoch) {
    batch_options opts;
    opts.producer_id = producer_id;
    opts.producer_epoch = producer_epoch;
    opts.transactional = true;
    opts.control = true;
    opts.partition_leader_epoch = partition_leader_epoch;
    batch_builder b(opts);
    bytes key = encode_control_record_key(marker.commit ? control_record_type::commit
                                                        : control_record_type::abort);
    bytes value = encode_end_txn_marker_value(marker.coordinator_epoch);
    b.add(timestamp, bytes_view(key), bytes_view(value));
    // Uncompressed and one small record: building cannot fail.
    return std::move(b.build()).value();
}

}  // namespace samsa::record
