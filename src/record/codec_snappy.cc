// snappy (codec 2): raw snappy and snappy-java's (xerial) framing
// (record/compression.h).
#include <snappy.h>

#include <array>

#include "record/codecs.h"
#include "record/compression.h"

namespace samsa::record::detail {

namespace {

constexpr std::array<uint8_t, 8> xerial_magic = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t xerial_header_size = 16;  // magic + version + compatible version
constexpr int32_t xerial_version = 1;

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

}  // namespace

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
        // Blocks only: librdkafka reads no repeated header (concatenated
        // streams), so a batch carrying one is refused here.
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

}  // namespace samsa::record::detail

namespace samsa::record {

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
    bytes out(detail::xerial_header_size);
    std::copy(detail::xerial_magic.begin(), detail::xerial_magic.end(), out.begin());
    store_be32(out.data() + 8, uint32_t(detail::xerial_version));
    store_be32(out.data() + 12, uint32_t(detail::xerial_version));
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
    return in.size() >= detail::xerial_magic.size() &&
           std::equal(detail::xerial_magic.begin(), detail::xerial_magic.end(), in.data());
}

}  // namespace samsa::record
