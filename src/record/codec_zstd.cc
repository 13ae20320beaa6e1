// zstd (codec 4): frames decoded with the streaming API, since a frame need
// not declare its content size (record/compression.h).
#include <zstd.h>

#include <memory>

#include "record/codecs.h"

namespace samsa::record::detail {

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

}  // namespace samsa::record::detail
