#include "record/batch_builder.h"

#include <limits>
#include <string>

#include "common/crc32c.h"
#include "record/batch_iterator.h"

namespace samsa::record {

namespace {

int64_t wrapping_sub(int64_t a, int64_t b) {
    return int64_t(uint64_t(a) - uint64_t(b));
}

void write_crc(uint8_t* batch, size_t size) {
    store_be32(batch + crc_offset, crc32c(batch + attributes_offset, size - attributes_offset));
}

// Assembles header + records region and computes the CRC.
result<bytes> assemble(batch_header h, bytes_view records_region) {
    size_t length = batch_header_size - log_overhead + records_region.size();
    if (length > size_t(std::numeric_limits<int32_t>::max())) {
        return error(error_code::message_too_large,
                     "record batch of " + std::to_string(length) + " bytes is too large");
    }
    h.batch_length = int32_t(length);
    h.magic = current_magic;
    bytes out(batch_header_size + records_region.size());
    encode_batch_header(h, out.data());
    std::copy(records_region.begin(), records_region.end(), out.begin() + batch_header_size);
    write_crc(out.data(), out.size());
    return out;
}

}  // namespace

batch_builder::batch_builder(batch_options options) : _options(options) {}

batch_builder& batch_builder::add(const record_input& in) {
    if (!_has_base_timestamp) {
        _base_timestamp = _options.delete_horizon.value_or(in.timestamp);
        _has_base_timestamp = true;
    }
    if (in.timestamp > _max_timestamp) {
        _max_timestamp = in.timestamp;
    }
    record r;
    r.timestamp_delta = wrapping_sub(in.timestamp, _base_timestamp);
    r.offset_delta = in.offset_delta.value_or(_next_offset_delta);
    r.key = in.key;
    r.value = in.value;
    r.headers.assign(in.headers.begin(), in.headers.end());
    encode_record(r, _records);
    _next_offset_delta = r.offset_delta + 1;
    ++_count;
    return *this;
}

result<bytes> batch_builder::build() const {
    batch_header h;
    h.base_offset = _options.base_offset;
    h.partition_leader_epoch = _options.partition_leader_epoch;
    h.attributes = int16_t(uint8_t(_options.codec) & batch_attributes::compression_mask);
    if (_options.timestamp_type == timestamp_type::log_append_time) {
        h.attributes |= batch_attributes::timestamp_type_bit;
    }
    if (_options.transactional) {
        h.attributes |= batch_attributes::transactional_bit;
    }
    if (_options.control) {
        h.attributes |= batch_attributes::control_bit;
    }
    if (_options.delete_horizon) {
        h.attributes |= batch_attributes::delete_horizon_bit;
    }
    h.last_offset_delta =
        _options.last_offset_delta.value_or(_count > 0 ? _next_offset_delta - 1 : 0);
    h.base_timestamp =
        _has_base_timestamp ? _base_timestamp : _options.delete_horizon.value_or(no_timestamp);
    h.max_timestamp = _options.timestamp_type == timestamp_type::log_append_time
                          ? _options.log_append_time
                          : _max_timestamp;
    h.producer_id = _options.producer_id;
    h.producer_epoch = _options.producer_epoch;
    h.base_sequence = _options.base_sequence;
    h.records_count = _count;
    if (_options.codec == compression::none) {
        return assemble(h, _records);
    }
    auto compressed = compress(_options.codec, _records, _options.compression_level);
    if (!compressed) {
        return compressed.err();
    }
    return assemble(h, *compressed);
}

status set_max_timestamp(std::span<uint8_t> batch, timestamp_type type, int64_t max_timestamp) {
    if (auto st = check_batch_structure(batch); !st) {
        return st;
    }
    batch_header h = decode_batch_header(batch.data());
    if (h.timestamp_type() == type && h.max_timestamp == max_timestamp) {
        return {};
    }
    int16_t attributes = int16_t(h.attributes & ~batch_attributes::timestamp_type_bit);
    if (type == timestamp_type::log_append_time) {
        attributes |= batch_attributes::timestamp_type_bit;
    }
    store_be16(batch.data() + attributes_offset, uint16_t(attributes));
    store_be64(batch.data() + max_timestamp_offset, uint64_t(max_timestamp));
    write_crc(batch.data(), batch.size());
    return {};
}

status set_log_append_time(std::span<uint8_t> batch, int64_t timestamp) {
    return set_max_timestamp(batch, timestamp_type::log_append_time, timestamp);
}

status stamp_base_offset_and_epoch(std::span<uint8_t> batch, int64_t base_offset,
                                   int32_t partition_leader_epoch) {
    if (batch.size() < batch_header_size) {
        return error(error_code::corrupt_message, "record batch of " +
                                                      std::to_string(batch.size()) +
                                                      " bytes is shorter than its header");
    }
    store_be64(batch.data(), uint64_t(base_offset));
    store_be32(batch.data() + partition_leader_epoch_offset, uint32_t(partition_leader_epoch));
    return {};
}

result<bytes> recompress_batch(bytes_view batch, compression codec, std::optional<int> level,
                               size_t max_uncompressed_bytes) {
    if (auto st = check_batch_structure(batch); !st) {
        return st.err();
    }
    if (auto c = compression_from_id(int(codec)); !c) {
        return c.err();
    }
    batch_header h = decode_batch_header(batch.data());
    auto source = compression_from_id(h.attributes & batch_attributes::compression_mask);
    if (!source) {
        return source.err();
    }
    auto plain = decompress(*source, batch.subspan(batch_header_size), max_uncompressed_bytes);
    if (!plain) {
        return plain.err();
    }
    h.attributes = int16_t((h.attributes & ~batch_attributes::compression_mask) | int16_t(codec));
    if (codec == compression::none) {
        return assemble(h, *plain);
    }
    auto compressed = compress(codec, *plain, level);
    if (!compressed) {
        return compressed.err();
    }
    return assemble(h, *compressed);
}

}  // namespace samsa::record
