// gzip (codec 1): RFC 1952 members through zlib, as Java's GZIP streams write
// and read them (record/compression.h).
#include <zlib.h>

#include <memory>
#include <string>

#include "record/codecs.h"

namespace samsa::record::detail {

namespace {

bool is_gzip_member_start(const uint8_t* p, size_t n) {
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

}  // namespace

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
            // One member and nothing after it. Java's reader would go on to a
            // second member but librdkafka stops at the first, so its records
            // would be lost to librdkafka consumers; refuse both that and
            // trailing bytes.
            if (zs.avail_in != 0) {
                return corrupt(std::to_string(zs.avail_in) +
                               (is_gzip_member_start(zs.next_in, zs.avail_in)
                                    ? " bytes of a second gzip member after the first"
                                    : " bytes after the gzip member"));
            }
            break;
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

}  // namespace samsa::record::detail
