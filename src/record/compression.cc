#include "record/compression.h"

#include "record/codecs.h"

namespace samsa::record {

result<compression> compression_from_id(int id) {
    if (id < 0 || id > 4) {
        return error(error_code::unsupported_compression_type,
                     "Unknown compression type id: " + std::to_string(id));
    }
    return compression(id);
}

std::string_view compression_name(compression c) {
    switch (c) {
        case compression::none:
            return "none";
        case compression::gzip:
            return "gzip";
        case compression::snappy:
            return "snappy";
        case compression::lz4:
            return "lz4";
        case compression::zstd:
            return "zstd";
    }
    return "unknown";
}

std::optional<compression> compression_from_name(std::string_view name) {
    for (int id = 0; id <= 4; ++id) {
        if (compression_name(compression(id)) == name) {
            return compression(id);
        }
    }
    return std::nullopt;
}

result<bytes> compress(compression codec, bytes_view in, std::optional<int> level) {
    switch (codec) {
        case compression::none:
            return bytes(in.begin(), in.end());
        case compression::gzip:
            return detail::gzip_compress(in, level.value_or(default_gzip_level));
        case compression::snappy:
            return snappy_compress_xerial(in);
        case compression::lz4:
            return detail::lz4_compress(in, level.value_or(default_lz4_level));
        case compression::zstd:
            return detail::zstd_compress(in, level.value_or(default_zstd_level));
    }
    return compression_from_id(int(codec)).err();
}

result<bytes> decompress(compression codec, bytes_view in, size_t max_output) {
    switch (codec) {
        case compression::none:
            if (in.size() > max_output) {
                return detail::too_large(max_output);
            }
            return bytes(in.begin(), in.end());
        case compression::gzip:
            return detail::gzip_decompress(in, max_output);
        case compression::snappy:
            return detail::snappy_decompress(in, max_output);
        case compression::lz4:
            return detail::lz4_decompress(in, max_output, false);
        case compression::zstd:
            return detail::zstd_decompress(in, max_output);
    }
    return compression_from_id(int(codec)).err();
}

}  // namespace samsa::record
