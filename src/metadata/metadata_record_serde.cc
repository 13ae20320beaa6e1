#include "metadata/metadata_record_serde.h"

#include <fmt/format.h>

#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::metadata {

namespace {

template <typename Record>
int16_t version_written() {
    if constexpr (std::is_same_v<Record, protocol::register_broker_record>) {
        return 2;
    } else {
        return 0;
    }
}

// Decodes a body of type Record; the alternative index of the variant is found
// from the record type by trying each alternative's api_key.
template <size_t I = 0>
result<metadata_record> decode_body(int16_t type, int16_t version, protocol::reader& r) {
    if constexpr (I == std::variant_size_v<metadata_record>) {
        return error(error_code::corrupt_message,
                     fmt::format("unknown metadata record type {}", type));
    } else {
        using record_t = std::variant_alternative_t<I, metadata_record>;
        if (record_t::api_key != type) {
            return decode_body<I + 1>(type, version, r);
        }
        if (version < record_t::min_version || version > record_t::max_version) {
            return error(
                error_code::corrupt_message,
                fmt::format("metadata record type {} has unsupported version {}", type, version));
        }
        record_t rec;
        rec.decode(r, version);
        if (!r.ok() || r.remaining() != 0) {
            return error(
                error_code::corrupt_message,
                fmt::format("metadata record type {} version {} is malformed", type, version));
        }
        return metadata_record(std::move(rec));
    }
}

}  // namespace

int16_t record_type(const metadata_record& r) {
    return std::visit([](const auto& rec) { return std::decay_t<decltype(rec)>::api_key; }, r);
}

int16_t written_version(const metadata_record& r) {
    return std::visit(
        [](const auto& rec) { return version_written<std::decay_t<decltype(rec)>>(); }, r);
}

bytes encode_metadata_record(const metadata_record& r) {
    return encode_metadata_record(r, written_version(r));
}

bytes encode_metadata_record(const metadata_record& r, int16_t version) {
    protocol::writer w;
    w.write_uvarint(metadata_frame_version);
    w.write_uvarint(uint32_t(record_type(r)));
    w.write_uvarint(uint32_t(version));
    std::visit([&](const auto& rec) { rec.encode(w, version); }, r);
    return std::move(w.buffer());
}

result<metadata_record> decode_metadata_record(bytes_view value) {
    protocol::reader r(value);
    uint32_t frame = r.read_uvarint();
    uint32_t type = r.read_uvarint();
    uint32_t version = r.read_uvarint();
    if (!r.ok()) {
        return error(error_code::corrupt_message, "metadata record frame is truncated");
    }
    if (frame != metadata_frame_version) {
        return error(error_code::corrupt_message,
                     fmt::format("unknown metadata record frame version {}", frame));
    }
    // Kafka reads both as shorts and refuses larger values.
    if (type > 0x7fff || version > 0x7fff) {
        return error(
            error_code::corrupt_message,
            fmt::format("metadata record type {} or version {} out of range", type, version));
    }
    return decode_body(int16_t(type), int16_t(version), r);
}

}  // namespace samsa::metadata
