#include "record/legacy_message_set.h"

#include <zlib.h>

#include <string>

#include "record/batch_builder.h"

namespace samsa::record {

namespace {

constexpr size_t entry_magic_offset = log_overhead + 4;  // after offset, size and crc
constexpr int8_t legacy_timestamp_type_bit = 0x08;

error corrupt(std::string msg) {
    return error(error_code::corrupt_message, std::move(msg));
}
error invalid(std::string msg) {
    return error(error_code::invalid_record, std::move(msg));
}

uint32_t legacy_crc(const uint8_t* p, size_t n) {
    uLong crc = crc32(0L, Z_NULL, 0);
    // zlib takes uInt lengths; messages are bounded by an int32 size anyway.
    return uint32_t(crc32(crc, p, uInt(n)));
}

// The fields of one message (crc through value); `msg` is exactly its bytes.
status parse_message(bytes_view msg, legacy_message& out) {
    if (msg.size() < legacy_overhead_v0) {
        return corrupt("Record is corrupt (size " + std::to_string(msg.size()) +
                       " is below the minimum record overhead)");
    }
    uint32_t stored = load_be32(msg.data());
    uint32_t computed = legacy_crc(msg.data() + 4, msg.size() - 4);
    if (stored != computed) {
        return corrupt("Record is corrupt (stored crc = " + std::to_string(stored) +
                       ", computed crc = " + std::to_string(computed) + ")");
    }
    out.magic = int8_t(msg[4]);
    out.attributes = int8_t(msg[5]);
    if (out.magic != 0 && out.magic != 1) {
        return corrupt("Invalid magic found in record: " + std::to_string(out.magic));
    }
    size_t pos = 6;
    if (out.magic == 1) {
        if (msg.size() < legacy_overhead_v1) {
            return corrupt("Record is corrupt (size " + std::to_string(msg.size()) +
                           " is below the minimum record overhead)");
        }
        out.timestamp = int64_t(load_be64(msg.data() + pos));
        out.log_append_time = (out.attributes & legacy_timestamp_type_bit) != 0;
        pos += 8;
    } else {
        out.timestamp = no_timestamp;
        out.log_append_time = false;
    }
    for (std::optional<bytes_view>* field : {&out.key, &out.value}) {
        if (msg.size() - pos < 4) {
            return corrupt("Record is corrupt (truncated key or value length)");
        }
        int32_t len = int32_t(load_be32(msg.data() + pos));
        pos += 4;
        if (len < -1 || (len >= 0 && size_t(len) > msg.size() - pos)) {
            return corrupt("Record is corrupt (invalid key or value length " + std::to_string(len) +
                           ")");
        }
        if (len == -1) {
            field->reset();
        } else {
            *field = msg.subspan(pos, size_t(len));
            pos += size_t(len);
        }
    }
    if (pos != msg.size()) {
        return corrupt("Record is corrupt (" + std::to_string(msg.size() - pos) +
                       " unread bytes after the value)");
    }
    return {};
}

enum class entry_state { whole, partial, corrupt };

// Frames the entry at the start of `in` (Kafka's nextBatchSize rules).
entry_state frame_entry(bytes_view in, size_t* size, error* why) {
    if (in.size() < log_overhead) {
        return entry_state::partial;
    }
    int32_t length = int32_t(load_be32(in.data() + 8));
    if (length < int32_t(legacy_overhead_v0)) {
        *why = corrupt("Record size " + std::to_string(length) +
                       " is less than the minimum record overhead (" +
                       std::to_string(legacy_overhead_v0) + ")");
        return entry_state::corrupt;
    }
    if (in.size() <= entry_magic_offset) {
        return entry_state::partial;
    }
    int8_t magic = int8_t(in[entry_magic_offset]);
    if (magic < 0 || magic > current_magic) {
        *why = corrupt("Invalid magic found in record: " + std::to_string(magic));
        return entry_state::corrupt;
    }
    *size = log_overhead + size_t(length);
    return in.size() >= *size ? entry_state::whole : entry_state::partial;
}

result<compression> legacy_codec(int8_t attributes) {
    int id = attributes & batch_attributes::compression_mask;
    if (id == int(compression::zstd)) {
        return error(error_code::unsupported_compression_type,
                     "ZStandard compression requires message format v2");
    }
    return compression_from_id(id);
}

}  // namespace

result<legacy_message_set> legacy_message_set::parse(bytes_view in,
                                                     const validation_options& options) {
    legacy_message_set set;
    std::vector<legacy_message> shallow;
    size_t pos = 0;
    while (true) {
        size_t size = 0;
        error why;
        entry_state state = frame_entry(in.subspan(pos), &size, &why);
        if (state == entry_state::corrupt) {
            return why;
        }
        if (state == entry_state::partial) {
            break;
        }
        int8_t magic = int8_t(in[pos + entry_magic_offset]);
        if (shallow.empty()) {
            if (magic == current_magic) {
                return invalid("Record batch of magic 2 in a legacy message set");
            }
            set._magic = magic;
        } else if (magic != set._magic) {
            return invalid("Batch magic " + std::to_string(magic) +
                           " is not the same as the first batch's magic byte " +
                           std::to_string(set._magic));
        }
        if (size > size_t(options.max_message_bytes)) {
            return error(error_code::message_too_large,
                         "The record batch size in the append is " + std::to_string(size) +
                             " bytes which exceeds the maximum configured value of " +
                             std::to_string(options.max_message_bytes) + ".");
        }
        legacy_message m;
        m.offset = int64_t(load_be64(in.data() + pos));
        if (auto st = parse_message(in.subspan(pos + log_overhead, size - log_overhead), m); !st) {
            return st.err();
        }
        auto codec = legacy_codec(m.attributes);
        if (!codec) {
            return codec.err();
        }
        if (*codec != compression::none) {
            set._codec = *codec;
        }
        shallow.push_back(m);
        pos += size;
    }
    set._valid_bytes = pos;
    if (set._codec == compression::none) {
        set._messages = std::move(shallow);
    } else {
        if (shallow.size() > 1) {
            return invalid("Compressed outer record has more than one batch");
        }
        const legacy_message& wrapper = shallow.front();
        if (!wrapper.value) {
            return invalid("Found invalid compressed record set with null value");
        }
        auto plain = set._codec == compression::lz4 && wrapper.magic == 0
                         ? decompress_lz4_ignoring_header_checksum(*wrapper.value,
                                                                   options.max_uncompressed_bytes)
                         : decompress(set._codec, *wrapper.value, options.max_uncompressed_bytes);
        if (!plain) {
            return plain.err();
        }
        set._decompressed = std::move(*plain);
        bytes_view inner = set._decompressed;
        record_rules inner_errors(options);
        size_t ipos = 0;
        int32_t index = 0;
        while (ipos < inner.size()) {
            size_t size = 0;
            error why;
            entry_state state = frame_entry(inner.subspan(ipos), &size, &why);
            if (state == entry_state::corrupt) {
                return why;
            }
            if (state == entry_state::partial) {
                return corrupt("Truncated inner message in compressed message set");
            }
            legacy_message m;
            m.offset = int64_t(load_be64(inner.data() + ipos));
            if (auto st = parse_message(inner.subspan(ipos + log_overhead, size - log_overhead), m);
                !st) {
                return st.err();
            }
            if ((m.attributes & batch_attributes::compression_mask) != 0) {
                inner_errors.reject(index,
                                    "Compressed outer record should not have an inner record "
                                    "with a compression attribute set");
            } else if (m.magic != wrapper.magic) {
                inner_errors.reject(index, "Record's magic does not match outer magic " +
                                               std::to_string(wrapper.magic));
            }
            if (wrapper.magic == 1) {
                m.log_append_time = wrapper.log_append_time;
                if (wrapper.log_append_time) {
                    m.timestamp = wrapper.timestamp;
                }
            }
            set._messages.push_back(m);
            ipos += size;
            ++index;
        }
        if (inner_errors.failed()) {
            std::vector<record_error> ignored;
            return inner_errors.batch_error(ignored);
        }
        if (set._messages.empty()) {
            return invalid("Found invalid compressed record set with no inner records");
        }
        if (wrapper.magic == 1) {
            // Relative inner offsets: the wrapper holds the last one's absolute offset.
            int64_t last_relative = set._messages.back().offset;
            for (auto& m : set._messages) {
                m.offset = int64_t(uint64_t(wrapper.offset) - uint64_t(last_relative) +
                                   uint64_t(m.offset));
            }
        }
    }
    record_rules rules(options);
    for (size_t i = 0; i < set._messages.size(); ++i) {
        const legacy_message& m = set._messages[i];
        rules.check(int32_t(i), m.key.has_value(), m.timestamp, m.offset, m.log_append_time);
    }
    if (rules.failed()) {
        std::vector<record_error> ignored;  // produce v0-v2 responses have no record errors
        return rules.batch_error(ignored);
    }
    return set;
}

result<bytes> convert_to_v2(const legacy_message_set& set, compression codec,
                            timestamp_type topic_timestamp_type, int64_t now_ms) {
    if (set.messages().empty()) {
        return error(error_code::invalid_record, "Record batch has no batches at all");
    }
    batch_options o;
    o.codec = codec;
    o.timestamp_type = topic_timestamp_type;
    o.log_append_time = now_ms;
    batch_builder b(o);
    for (const auto& m : set.messages()) {
        b.add(m.timestamp, m.key, m.value);
    }
    return b.build();
}

void encode_legacy_message(bytes& out, int8_t magic, int64_t offset, int8_t attributes,
                           int64_t timestamp, std::optional<bytes_view> key,
                           std::optional<bytes_view> value) {
    size_t size = (magic == 0 ? legacy_overhead_v0 : legacy_overhead_v1) + (key ? key->size() : 0) +
                  (value ? value->size() : 0);
    size_t start = out.size();
    out.resize(start + log_overhead + size);
    uint8_t* p = out.data() + start;
    store_be64(p, uint64_t(offset));
    store_be32(p + 8, uint32_t(size));
    uint8_t* msg = p + log_overhead;
    msg[4] = uint8_t(magic);
    msg[5] = uint8_t(attributes);
    size_t pos = 6;
    if (magic != 0) {
        store_be64(msg + pos, uint64_t(timestamp));
        pos += 8;
    }
    for (const std::optional<bytes_view>* field : {&key, &value}) {
        if (!*field) {
            store_be32(msg + pos, uint32_t(-1));
            pos += 4;
            continue;
        }
        store_be32(msg + pos, uint32_t((*field)->size()));
        pos += 4;
        std::copy((*field)->begin(), (*field)->end(), msg + pos);
        pos += (*field)->size();
    }
    store_be32(msg, legacy_crc(msg + 4, size - 4));
}

}  // namespace samsa::record
