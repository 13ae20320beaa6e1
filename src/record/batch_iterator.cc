#include "record/batch_iterator.h"

#include <string>

#include "common/crc32c.h"

namespace samsa::record {

namespace {

// The magic byte is the last field needed to tell a v2 batch from garbage.
constexpr size_t header_size_up_to_magic = magic_offset + 1;

}  // namespace

batch_iterator::batch_iterator(bytes_view range, batch_iterator_options options)
    : _range(range), _options(options) {}

std::optional<batch_view> batch_iterator::halt(batch_stop why, std::string message) {
    _stop = why;
    if (why == batch_stop::corrupt) {
        _error = error(error_code::corrupt_message, std::move(message));
    }
    return std::nullopt;
}

std::optional<batch_view> batch_iterator::next() {
    if (_stop != batch_stop::none) {
        return std::nullopt;
    }
    size_t remaining = _range.size() - _pos;
    if (remaining == 0) {
        return halt(batch_stop::end);
    }
    if (remaining < log_overhead) {
        return halt(batch_stop::truncated);
    }
    const uint8_t* p = _range.data() + _pos;
    int32_t length = int32_t(load_be32(p + 8));
    // The length is checked before the bytes are known to be there, as Kafka
    // does: a torn tail cannot hide a length no batch could have.
    if (length < int32_t(batch_header_size - log_overhead)) {
        return halt(batch_stop::corrupt, "Record batch size " + std::to_string(length) +
                                             " is less than the minimum batch overhead (" +
                                             std::to_string(batch_header_size - log_overhead) +
                                             ") at position " + std::to_string(_pos));
    }
    size_t size = log_overhead + size_t(length);
    if (size > _options.max_batch_size) {
        return halt(batch_stop::corrupt, "Record batch size " + std::to_string(size) +
                                             " exceeds the largest allowable size (" +
                                             std::to_string(_options.max_batch_size) +
                                             ") at position " + std::to_string(_pos));
    }
    if (remaining < header_size_up_to_magic) {
        return halt(batch_stop::truncated);
    }
    int8_t magic = int8_t(p[magic_offset]);
    if (magic != current_magic) {
        return halt(batch_stop::corrupt, "Invalid magic " + std::to_string(magic) +
                                             " in record batch at position " +
                                             std::to_string(_pos));
    }
    if (remaining < size) {
        return halt(batch_stop::truncated);
    }
    batch_view v{decode_batch_header(p), bytes_view(p, size), _pos};
    if (_options.verify_crc) {
        uint32_t computed = crc32c(p + attributes_offset, size - attributes_offset);
        if (computed != v.header.crc) {
            return halt(batch_stop::corrupt,
                        "Record is corrupt (stored crc = " + std::to_string(v.header.crc) +
                            ", computed crc = " + std::to_string(computed) + ") at position " +
                            std::to_string(_pos));
        }
    }
    _pos += size;
    return v;
}

status check_batch_structure(bytes_view batch) {
    if (batch.size() < batch_header_size) {
        return error(error_code::corrupt_message,
                     "Record batch is corrupt (the size " + std::to_string(batch.size()) +
                         " is smaller than the minimum allowed overhead " +
                         std::to_string(batch_header_size) + ")");
    }
    batch_header h = decode_batch_header(batch.data());
    if (h.magic != current_magic) {
        return error(error_code::corrupt_message,
                     "Invalid magic " + std::to_string(h.magic) + " for a v2 batch");
    }
    if (h.batch_length < 0 || h.size_bytes() != batch.size()) {
        return error(error_code::corrupt_message,
                     "Record batch length " + std::to_string(h.batch_length) +
                         " does not match its " + std::to_string(batch.size()) + " bytes");
    }
    return {};
}

result<record_iterator> record_iterator::open(bytes_view batch, size_t max_uncompressed_bytes) {
    if (auto st = check_batch_structure(batch); !st) {
        return st.err();
    }
    record_iterator it;
    it._header = decode_batch_header(batch.data());
    if (it._header.records_count < 0) {
        return error(error_code::invalid_record, "Found invalid record count " +
                                                     std::to_string(it._header.records_count) +
                                                     " in magic v2 batch");
    }
    auto codec = compression_from_id(it._header.attributes & batch_attributes::compression_mask);
    if (!codec) {
        return codec.err();
    }
    bytes_view body = batch.subspan(batch_header_size);
    // An empty compressed batch (no records, no compressed bytes) is empty, not
    // a truncated stream.
    if (*codec == compression::none || (body.empty() && it._header.records_count == 0)) {
        it._records = body;
        return it;
    }
    auto plain = decompress(*codec, body, max_uncompressed_bytes);
    if (!plain) {
        return plain.err();
    }
    it._owned = std::move(*plain);
    it._records = it._owned;
    return it;
}

result<bool> record_iterator::next(record& out) {
    if (_read >= _header.records_count) {
        return false;
    }
    if (_pos >= _records.size()) {
        return error(error_code::invalid_record,
                     "Incorrect declared batch size, premature EOF reached after " +
                         std::to_string(_read) + " of " + std::to_string(_header.records_count) +
                         " records");
    }
    auto n = decode_record(_records.subspan(_pos), out);
    if (!n) {
        return n.err();
    }
    _pos += *n;
    ++_read;
    if (_read == _header.records_count && _pos != _records.size()) {
        return error(error_code::invalid_record,
                     "Incorrect declared batch size, records still remaining in file");
    }
    return true;
}

}  // namespace samsa::record
