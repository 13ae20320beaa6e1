#include "record/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

namespace samsa::record {

namespace {

constexpr std::array<uint8_t, 8> xerial_magic = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t xerial_header_size = 16;  // magic + version + compatible version
constexpr int32_t xerial_version = 1;
constexpr uint32_t lz4_frame_magic = 0x184D2204;

error corrupt(std::string msg) {
    return error(error_code::corrupt_message, std::move(msg));
}

error too_large(size_t max_output) {
    return corrupt("decompressed size exceeds the limit of " + std::to_string(max_output) +
                   " bytes");
}

// An output buffer that grows geometrically but never past max + 1 bytes: the
// extra byte lets a decoder prove the output is too large without ever holding
// more than the limit plus one byte.
class bounded_output {
  public:
    bounded_output(size_t max, size_t size_hint) : _max(max) {
        size_t cap = _max == std::numeric_limits<size_t>::max() ? _max : _max + 1;
        _buf.resize(std::min(cap, std::max<size_t>(size_hint, 4096)));
    }
    uint8_t* free_ptr() { return _buf.data() + _used; }
    size_t free_size() const { return _buf.size() - _used; }
    void commit(size_t n) { _used += n; }
    size_t used() const { return _used; }
    bool over_limit() const { return _used > _max; }
    // Makes room for more output; false when the limit (+1) is already reached.
    bool grow() {
        size_t cap = _max == std::numeric_limits<size_t>::max() ? _max : _max + 1;
        if (_buf.size() >= cap) {
            return false;
        }
        size_t next = _buf.size() > cap / 2 ? cap : _buf.size() * 2;
        _buf.resize(next);
        return true;
    }
    bytes take() && {
        _buf.resize(_used);
        return std::move(_buf);
    }

  private:
    bytes _buf;
    size_t _used = 0;
    size_t _max;
};

// The first output buffer size: a guess from the input size, never above the limit.
size_t size_hint(bytes_view in, size_t max_output) {
    size_t guess = in.size() > std::numeric_limits<size_t>::max() / 4 ? in.size() : in.size() * 4;
    return std::min(guess, max_output);
}

// ---- gzip ----------------------------------------------------------------

result<bytes> gzip_compress(bytes_view in, int level) {
    z_stream zs{};
    if (deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return error(error_code::invalid_config, "invalid gzip level " + std::to_string(level));
    }
    bytes out(deflateBound(&zs, uLong(in.size())));
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    zs.next_out = out.data();
    zs.avail_out = uInt(out.size());
    int rc = deflate(&zs, Z_FINISH);
    size_t produced = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        return error(error_code::unknown_server_error, "gzip compression failed");
    }
    out.resize(produced);
    return out;
}

bool is_gzip_member_start(const uint8_t* p, size_t n) {
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

result<bytes> gzip_decompress(bytes_view in, size_t max_output) {
    if (in.size() > std::numeric_limits<uInt>::max()) {
        return corrupt("gzip input too large");
    }
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        return error(error_code::unknown_server_error, "zlib initialisation failed");
    }
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
    bounded_output out(max_output, size_hint(in, max_output));
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    while (true) {
        if (out.free_size() == 0 && !out.grow()) {
            return too_large(max_output);
        }
        zs.next_out = out.free_ptr();
        zs.avail_out = uInt(std::min<size_t>(out.free_size(), std::numeric_limits<uInt>::max()));
        uInt before = zs.avail_out;
        int rc = inflate(&zs, Z_NO_FLUSH);
        out.commit(before - zs.avail_out);
        if (out.over_limit()) {
            return too_large(max_output);
        }
        if (rc == Z_STREAM_END) {
            // Another member may follow; anything else after a member is ignored.
            if (!is_gzip_member_start(zs.next_in, zs.avail_in)) {
                break;
            }
            inflateReset(&zs);
            continue;
        }
        if (rc == Z_OK || (rc == Z_BUF_ERROR && zs.avail_out == 0)) {
            if (zs.avail_in == 0 && zs.avail_out != 0) {
                return corrupt("truncated gzip data");
            }
            continue;
        }
        if (rc == Z_BUF_ERROR) {
            return corrupt("truncated gzip data");
        }
        return corrupt(std::string("invalid gzip data: ") + (zs.msg ? zs.msg : "inflate failed"));
    }
    return std::move(out).take();
}

// ---- snappy --------------------------------------------------------------

result<void> snappy_raw_into(const uint8_t* p, size_t n, bounded_output& out, size_t max_output) {
    size_t len = 0;
    if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(p), n, &len)) {
        return corrupt("invalid snappy data");
    }
    if (len > max_output - std::min(max_output, out.used())) {
        return too_large(max_output);
    }
    // A snappy copy element of 3 bytes yields at most 64 bytes, so no valid input
    // expands more than ~22 times: refuse bigger claims before allocating for them.
    if (len / 32 > n) {
        return corrupt("invalid snappy data: uncompressed length " + std::to_string(len) +
                       " is impossible for " + std::to_string(n) + " input bytes");
    }
    while (out.free_size() < len) {
        if (!out.grow()) {
            return too_large(max_output);
        }
    }
    if (!snappy::RawUncompress(reinterpret_cast<const char*>(p), n,
                               reinterpret_cast<char*>(out.free_ptr()))) {
        return corrupt("invalid snappy data");
    }
    out.commit(len);
    return {};
}

result<bytes> snappy_decompress(bytes_view in, size_t max_output) {
    if (!is_xerial_snappy(in)) {
        size_t len = 0;
        if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(in.data()), in.size(),
                                           &len)) {
            return corrupt("invalid snappy data");
        }
        bounded_output out(max_output, std::min({len, max_output, in.size() * 32}));
        if (auto st = snappy_raw_into(in.data(), in.size(), out, max_output); !st) {
            return st.err();
        }
        return std::move(out).take();
    }
    if (in.size() < xerial_header_size) {
        return corrupt("truncated xerial snappy header");
    }
    bounded_output out(max_output, size_hint(in, max_output));
    size_t pos = xerial_header_size;
    while (pos < in.size()) {
        size_t left = in.size() - pos;
        // Concatenated streams repeat the header; a block length never looks like
        // it because the magic's first byte would make the length negative.
        if (left >= xerial_header_size &&
            std::equal(xerial_magic.begin(), xerial_magic.end(), in.data() + pos)) {
            pos += xerial_header_size;
            continue;
        }
        if (left < 4) {
            return corrupt("truncated xerial snappy block length");
        }
        int32_t len = int32_t(load_be32(in.data() + pos));
        pos += 4;
        if (len < 0 || size_t(len) > in.size() - pos) {
            return corrupt("invalid xerial snappy block length " + std::to_string(len));
        }
        if (auto st = snappy_raw_into(in.data() + pos, size_t(len), out, max_output); !st) {
            return st.err();
        }
        pos += size_t(len);
    }
    return std::move(out).take();
}

// ---- lz4 -----------------------------------------------------------------

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

struct lz4_dctx_deleter {
    void operator()(LZ4F_dctx* c) const { LZ4F_freeDecompressionContext(c); }
};

// Length of the LZ4 frame header at `p` (magic through header checksum), or 0
// when it is truncated or not an LZ4 frame.
size_t lz4_header_size(const uint8_t* p, size_t n) {
    if (n < 7 || (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
                  uint32_t(p[3]) << 24) != lz4_frame_magic) {
        return 0;
    }
    uint8_t flg = p[4];
    size_t size = 4 + 2 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0) + 1;
    return n >= size ? size : 0;
}

bool starts_lz4_frame(const uint8_t* p, size_t n) {
    if (n < 4) {
        return false;
    }
    uint32_t m = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    return m == lz4_frame_magic || (m & 0xFFFFFFF0u) == 0x184D2A50u;  // or a skippable frame
}

// Decodes LZ4 frames; with `fix_header_checksum` the header checksum of each
// frame is recomputed first, as Kafka ignores it for magic 0 messages.
result<bytes> lz4_decompress(bytes_view in, size_t max_output, bool fix_header_checksum) {
    LZ4F_dctx* raw = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
        return error(error_code::unknown_server_error, "lz4 initialisation failed");
    }
    std::unique_ptr<LZ4F_dctx, lz4_dctx_deleter> ctx(raw);
    bounded_output out(max_output, size_hint(in, max_output));
    const uint8_t* p = in.data();
    const uint8_t* end = in.data() + in.size();
    bool at_frame_start = true;
    while (true) {
        if (at_frame_start) {
            if (p != in.data() && !starts_lz4_frame(p, size_t(end - p))) {
                break;  // bytes after the last frame are ignored, as Kafka's reader does
            }
            if (fix_header_checksum) {
                size_t hs = lz4_header_size(p, size_t(end - p));
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
            at_frame_start = false;
        }
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
            if (p == end) {
                break;
            }
            at_frame_start = true;
            continue;
        }
        if (p == end && out.free_size() != 0) {
            return corrupt("truncated lz4 frame");
        }
    }
    return std::move(out).take();
}

// ---- zstd ----------------------------------------------------------------

result<bytes> zstd_compress(bytes_view in, int level) {
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return error(error_code::invalid_config, "invalid zstd level " + std::to_string(level));
    }
    bytes out(ZSTD_compressBound(in.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
    if (ZSTD_isError(n)) {
        return error(error_code::unknown_server_error,
                     std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    }
    out.resize(n);
    return out;
}

result<bytes> zstd_decompress(bytes_view in, size_t max_output) {
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!ctx) {
        return error(error_code::unknown_server_error, "zstd initialisation failed");
    }
    size_t hint = size_hint(in, max_output);
    unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR) {
        // The declared size is the sender's claim: trust it only up to a bound, so
        // a few hostile bytes cannot make us allocate the whole limit up front.
        size_t plausible = std::max<size_t>(size_t(1) << 20, hint);
        hint = size_t(std::min<unsigned long long>({declared, max_output, plausible}));
    }
    bounded_output out(max_output, hint);
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    while (true) {
        if (out.free_size() == 0 && !out.grow()) {
            return too_large(max_output);
        }
        ZSTD_outBuffer dst{out.free_ptr(), out.free_size(), 0};
        size_t rc = ZSTD_decompressStream(ctx.get(), &dst, &src);
        if (ZSTD_isError(rc)) {
            return corrupt(std::string("invalid zstd data: ") + ZSTD_getErrorName(rc));
        }
        out.commit(dst.pos);
        if (out.over_limit()) {
            return too_large(max_output);
        }
        if (rc == 0 && src.pos == src.size) {
            break;  // last frame complete
        }
        if (src.pos == src.size && dst.pos < dst.size) {
            return corrupt("truncated zstd frame");
        }
    }
    return std::move(out).take();
}

uint32_t rotl32(uint32_t x, int r) {
    return (x << r) | (x >> (32 - r));
}
uint32_t load_le32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

}  // namespace

uint32_t xxh32(bytes_view data, uint32_t seed) {
    constexpr uint32_t p1 = 2654435761u, p2 = 2246822519u, p3 = 3266489917u, p4 = 668265263u,
                       p5 = 374761393u;
    const uint8_t* p = data.data();
    const uint8_t* end = p + data.size();
    uint32_t h;
    if (data.size() >= 16) {
        uint32_t v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
        auto round = [&](uint32_t acc, const uint8_t* q) {
            return rotl32(acc + load_le32(q) * p2, 13) * p1;
        };
        for (; end - p >= 16; p += 16) {
            v1 = round(v1, p);
            v2 = round(v2, p + 4);
            v3 = round(v3, p + 8);
            v4 = round(v4, p + 12);
        }
        h = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
    } else {
        h = seed + p5;
    }
    h += uint32_t(data.size());
    for (; end - p >= 4; p += 4) {
        h = rotl32(h + load_le32(p) * p3, 17) * p4;
    }
    for (; p < end; ++p) {
        h = rotl32(h + *p * p5, 11) * p1;
    }
    h ^= h >> 15;
    h *= p2;
    h ^= h >> 13;
    h *= p3;
    h ^= h >> 16;
    return h;
}

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

bytes snappy_compress_raw(bytes_view in) {
    bytes out(snappy::MaxCompressedLength(in.size()));
    size_t n = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(),
                        reinterpret_cast<char*>(out.data()), &n);
    out.resize(n);
    return out;
}

bytes snappy_compress_xerial(bytes_view in, size_t block_size) {
    block_size = std::max<size_t>(block_size, 1);
    bytes out(xerial_header_size);
    std::copy(xerial_magic.begin(), xerial_magic.end(), out.begin());
    store_be32(out.data() + 8, uint32_t(xerial_version));
    store_be32(out.data() + 12, uint32_t(xerial_version));
    for (size_t pos = 0; pos < in.size(); pos += block_size) {
        size_t n = std::min(block_size, in.size() - pos);
        size_t at = out.size();
        out.resize(at + 4 + snappy::MaxCompressedLength(n));
        size_t written = 0;
        snappy::RawCompress(reinterpret_cast<const char*>(in.data() + pos), n,
                            reinterpret_cast<char*>(out.data() + at + 4), &written);
        store_be32(out.data() + at, uint32_t(written));
        out.resize(at + 4 + written);
    }
    return out;
}

bool is_xerial_snappy(bytes_view in) {
    return in.size() >= xerial_magic.size() &&
           std::equal(xerial_magic.begin(), xerial_magic.end(), in.data());
}

result<bytes> compress(compression codec, bytes_view in, std::optional<int> level) {
    switch (codec) {
        case compression::none:
            return bytes(in.begin(), in.end());
        case compression::gzip:
            return gzip_compress(in, level.value_or(default_gzip_level));
        case compression::snappy:
            return snappy_compress_xerial(in);
        case compression::lz4:
            return lz4_compress(in, level.value_or(default_lz4_level));
        case compression::zstd:
            return zstd_compress(in, level.value_or(default_zstd_level));
    }
    return compression_from_id(int(codec)).err();
}

result<bytes> decompress(compression codec, bytes_view in, size_t max_output) {
    switch (codec) {
        case compression::none:
            if (in.size() > max_output) {
                return too_large(max_output);
            }
            return bytes(in.begin(), in.end());
        case compression::gzip:
            return gzip_decompress(in, max_output);
        case compression::snappy:
            return snappy_decompress(in, max_output);
        case compression::lz4:
            return lz4_decompress(in, max_output, false);
        case compression::zstd:
            return zstd_decompress(in, max_output);
    }
    return compression_from_id(int(codec)).err();
}

result<bytes> decompress_lz4_ignoring_header_checksum(bytes_view in, size_t max_output) {
    return lz4_decompress(in, max_output, true);
}

}  // namespace samsa::record
