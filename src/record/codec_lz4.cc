// lz4 (codec 3): the LZ4 frame format through lz4frame.h, and XXH32 for the
// frame header checksum (record/compression.h).
#include <lz4frame.h>

#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "record/codecs.h"
#include "record/compression.h"

namespace samsa::record::detail {

namespace {

constexpr uint32_t lz4_frame_magic = 0x184D2204;

uint32_t rotl32(uint32_t x, int r) {
    return (x << r) | (x >> (32 - r));
}
uint32_t load_le32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

struct lz4_dctx_deleter {
    void operator()(LZ4F_dctx* c) const { LZ4F_freeDecompressionContext(c); }
};

// Length of the LZ4 frame header at `p` (magic through header checksum), or 0
// when it is truncated or not an LZ4 frame.
size_t lz4_header_size(const uint8_t* p, size_t n) {
    if (n < 7 || load_le32(p) != lz4_frame_magic) {
        return 0;
    }
    uint8_t flg = p[4];
    size_t size = 4 + 2 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0) + 1;
    return n >= size ? size : 0;
}

// The frame descriptor fields both mainstream readers accept. Kafka's Java
// reader (Lz4BlockInputStream) refuses a dictionary id (its "reserved" bits
// 0-1), dependent blocks and any version but 01; librdkafka reads what
// lz4frame reads. A frame outside the intersection is a batch some consumer
// cannot read, so it is refused at the door.
std::optional<std::string> unreadable_descriptor(const uint8_t* p, size_t n) {
    if (n < 6 || load_le32(p) != lz4_frame_magic) {
        return "not an lz4 frame";
    }
    uint8_t flg = p[4];
    uint8_t bd = p[5];
    if ((flg >> 6) != 1) {
        return "lz4 frame version " + std::to_string(flg >> 6) + " is unsupported";
    }
    if ((flg & 0x03) != 0) {
        return "lz4 frame with a dictionary id or reserved FLG bits";
    }
    if ((flg & 0x20) == 0) {
        return "lz4 frame with dependent blocks";
    }
    if ((bd & 0x8F) != 0 || ((bd >> 4) & 0x07) < 4) {
        return "invalid lz4 block descriptor";
    }
    return std::nullopt;
}

}  // namespace

result<bytes> lz4_compress(bytes_view in, int level) {
    LZ4F_preferences_t prefs;
    std::memset(&prefs, 0, sizeof(prefs));
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
    prefs.frameInfo.frameType = LZ4F_frame;
    prefs.frameInfo.contentSize = 0;
    prefs.frameInfo.dictID = 0;
    prefs.compressionLevel = level;
    bytes out(LZ4F_compressFrameBound(in.size(), &prefs));
    size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
    if (LZ4F_isError(n)) {
        return error(error_code::unknown_server_error,
                     std::string("lz4 compression failed: ") + LZ4F_getErrorName(n));
    }
    out.resize(n);
    return out;
}

result<bytes> lz4_decompress(bytes_view in, size_t max_output, bool fix_header_checksum) {
    LZ4F_dctx* raw = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
        return error(error_code::unknown_server_error, "lz4 initialisation failed");
    }
    std::unique_ptr<LZ4F_dctx, lz4_dctx_deleter> ctx(raw);
    bounded_output out(max_output, size_hint(in, max_output));
    const uint8_t* p = in.data();
    const uint8_t* end = in.data() + in.size();
    // Exactly one frame and nothing after it: Kafka's Java reader stops at the
    // first frame's end mark, and librdkafka fails a batch with any byte after
    // it ("bytes remaining"), leaving every consumer stuck at that offset.
    if (auto why = unreadable_descriptor(p, in.size())) {
        return corrupt(*why);
    }
    if (fix_header_checksum) {
        size_t hs = lz4_header_size(p, in.size());
        if (hs == 0) {
            return corrupt("invalid lz4 frame header");
        }
        std::array<uint8_t, LZ4F_HEADER_SIZE_MAX> header{};
        std::memcpy(header.data(), p, hs);
        header[hs - 1] = uint8_t(xxh32(bytes_view(header.data() + 4, hs - 5)) >> 8);
        size_t src = hs;
        size_t dst = 0;
        size_t rc = LZ4F_decompress(ctx.get(), nullptr, &dst, header.data(), &src, nullptr);
        if (LZ4F_isError(rc) || src != hs) {
            return corrupt("invalid lz4 frame header");
        }
        p += hs;
    }
    while (true) {
        if (out.free_size() == 0 && !out.grow()) {
            return too_large(max_output);
        }
        size_t src = size_t(end - p);
        size_t dst = out.free_size();
        size_t rc = LZ4F_decompress(ctx.get(), out.free_ptr(), &dst, p, &src, nullptr);
        if (LZ4F_isError(rc)) {
            return corrupt(std::string("invalid lz4 data: ") + LZ4F_getErrorName(rc));
        }
        p += src;
        out.commit(dst);
        if (out.over_limit()) {
            return too_large(max_output);
        }
        if (rc == 0) {  // frame complete
            if (p != end) {
                return corrupt(std::to_string(end - p) + " bytes after the lz4 frame");
            }
            break;
        }
        if (p == end && out.free_size() != 0) {
            return corrupt("truncated lz4 frame");
        }
    }
    return std::move(out).take();
}

}  // namespace samsa::record::detail

namespace samsa::record {

uint32_t xxh32(bytes_view data, uint32_t seed) {
    constexpr uint32_t p1 = 2654435761u, p2 = 2246822519u, p3 = 3266489917u, p4 = 668265263u,
                       p5 = 374761393u;
    const uint8_t* p = data.data();
    const uint8_t* end = p + data.size();
    uint32_t h;
    if (data.size() >= 16) {
        uint32_t v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
        auto round = [&](uint32_t acc, const uint8_t* q) {
            return detail::rotl32(acc + detail::load_le32(q) * p2, 13) * p1;
        };
        for (; end - p >= 16; p += 16) {
            v1 = round(v1, p);
            v2 = round(v2, p + 4);
            v3 = round(v3, p + 8);
            v4 = round(v4, p + 12);
        }
        h = detail::rotl32(v1, 1) + detail::rotl32(v2, 7) + detail::rotl32(v3, 12) +
            detail::rotl32(v4, 18);
    } else {
        h = seed + p5;
    }
    h += uint32_t(data.size());
    for (; end - p >= 4; p += 4) {
        h = detail::rotl32(h + detail::load_le32(p) * p3, 17) * p4;
    }
    for (; p < end; ++p) {
        h = detail::rotl32(h + *p * p5, 11) * p1;
    }
    h ^= h >> 15;
    h *= p2;
    h ^= h >> 13;
    h *= p3;
    h ^= h >> 16;
    return h;
}

result<bytes> decompress_lz4_ignoring_header_checksum(bytes_view in, size_t max_output) {
    return detail::lz4_decompress(in, max_output, true);
}

}  // namespace samsa::record
