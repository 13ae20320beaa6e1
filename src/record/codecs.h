#pragma once
// Internal to record/: the per-codec halves of record/compression.h and the
// bounded output buffer they share. Other rooms use record/compression.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "common/bytes.h"
#include "common/result.h"

namespace samsa::record::detail {

inline error corrupt(std::string msg) {
    return error(error_code::corrupt_message, std::move(msg));
}

inline error too_large(size_t max_output) {
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
inline size_t size_hint(bytes_view in, size_t max_output) {
    size_t guess = in.size() > std::numeric_limits<size_t>::max() / 4 ? in.size() : in.size() * 4;
    return std::min(guess, max_output);
}

result<bytes> gzip_compress(bytes_view in, int level);
result<bytes> gzip_decompress(bytes_view in, size_t max_output);
result<bytes> snappy_decompress(bytes_view in, size_t max_output);
result<bytes> lz4_compress(bytes_view in, int level);
// With `fix_header_checksum` each frame's header checksum is recomputed before
// decoding, because Kafka ignores it for magic 0 messages.
result<bytes> lz4_decompress(bytes_view in, size_t max_output, bool fix_header_checksum);
result<bytes> zstd_compress(bytes_view in, int level);
result<bytes> zstd_decompress(bytes_view in, size_t max_output);

}  // namespace samsa::record::detail
