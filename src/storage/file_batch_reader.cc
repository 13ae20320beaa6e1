#include "storage/file_batch_reader.h"

#include <algorithm>

#include "common/crc32c.h"

namespace samsa::storage {

namespace {
constexpr size_t read_chunk = 64 * 1024;
}

file_batch_reader::file_batch_reader(const file_handle& file, int64_t start, int64_t end,
                                     file_batch_reader_options options)
    : _file(file), _pos(start), _end(end), _options(options) {}

result<size_t> file_batch_reader::fill(int64_t pos, size_t need) {
    size_t avail = size_t(std::max<int64_t>(0, _end - pos));
    need = std::min(need, avail);
    if (pos >= _buf_start && pos + int64_t(need) <= _buf_start + int64_t(_buf_len)) {
        return need;
    }
    if (_buf_len > 0 && pos >= _buf_start && pos <= _buf_start + int64_t(_buf_len)) {
        _chunk = std::min(_chunk * 2, read_chunk);
    }
    size_t want = std::min(std::max(need, _chunk), avail);
    if (_buf.size() < want) {
        _buf.resize(want);
    }
    auto n = _file.pread_full(_buf.data(), want, pos);
    if (!n) {
        return n.err();
    }
    _buf_start = pos;
    _buf_len = *n;
    return std::min(need, *n);
}

std::optional<file_batch> file_batch_reader::halt(scan_stop why, std::string reason) {
    _stop = why;
    _reason = std::move(reason);
    _last_bytes = {};
    return std::nullopt;
}

result<std::optional<file_batch>> file_batch_reader::next() {
    if (_stop != scan_stop::none) {
        return std::optional<file_batch>();
    }
    if (_pos >= _end) {
        return halt(scan_stop::end, {});
    }
    auto got = fill(_pos, record::batch_header_size);
    if (!got) {
        return got.err();
    }
    const std::string at = " at position " + std::to_string(_pos);
    if (*got < record::log_overhead) {
        return halt(scan_stop::truncated, "partial batch header" + at);
    }
    const uint8_t* p = _buf.data() + (_pos - _buf_start);
    int32_t batch_length = int32_t(load_be32(p + 8));
    if (batch_length < int32_t(record::batch_header_size - record::log_overhead)) {
        return halt(scan_stop::corrupt,
                    "batch length " + std::to_string(batch_length) + " below the header size" + at);
    }
    if (*got < record::batch_header_size) {
        return halt(scan_stop::truncated, "partial batch header" + at);
    }
    file_batch b{record::decode_batch_header(p), _pos};
    if (b.end() > _end) {
        return halt(scan_stop::truncated, "batch of " + std::to_string(b.size()) +
                                              " bytes runs past the end " + std::to_string(_end) +
                                              at);
    }
    if (b.header.magic != record::current_magic) {
        return halt(scan_stop::corrupt, "magic " + std::to_string(int(b.header.magic)) + at);
    }
    if (b.header.last_offset_delta < 0) {
        return halt(scan_stop::corrupt, "negative last offset delta" + at);
    }
    if (_options.verify_crc || _options.load_bytes) {
        auto whole = fill(_pos, size_t(b.size()));
        if (!whole) {
            return whole.err();
        }
        if (*whole < size_t(b.size())) {
            return halt(scan_stop::truncated, "file shorter than expected" + at);
        }
        const uint8_t* q = _buf.data() + (_pos - _buf_start);
        if (_options.verify_crc) {
            uint32_t crc =
                crc32c(q + record::attributes_offset, size_t(b.size()) - record::attributes_offset);
            if (crc != b.header.crc) {
                return halt(scan_stop::corrupt, "CRC mismatch" + at);
            }
        }
        _last_bytes = bytes_view(q, size_t(b.size()));
    }
    _pos = b.end();
    return std::optional<file_batch>(b);
}

}  // namespace samsa::storage
