#pragma once
// file_batch_reader: walks the record batches of a region of a `.log` file
// through a read buffer (reads grow from 1 to 64 KiB on contiguous scans, not
// one pread per batch), for offset translation, timestamp search, recovery and
// index rebuilds.
//
// It stops at the end of the region or at the first bytes that are not a whole,
// plausible v2 batch, and says why:
//   * end        only whole batches;
//   * truncated  a batch header or body runs past the region (a torn append);
//   * corrupt    batch_length below the 61-byte header, magic other than 2,
//                a negative last_offset_delta, or (verify_crc) a CRC32C
//                mismatch over bytes [21, end of batch).
// valid_end() is then the position right after the last whole valid batch: the
// truncation point of recovery. A zero-filled tail reads as corrupt (length 0).
// I/O errors are returned as KAFKA_STORAGE_ERROR.
//
// Not thread-safe; borrows the file handle, which must outlive it.
#include <cstdint>
#include <optional>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"
#include "storage/file_util.h"

namespace samsa::storage {

enum class scan_stop : uint8_t { none, end, truncated, corrupt };

struct file_batch {
    record::batch_header header;
    int64_t position = 0;  // of the batch's first byte in the file
    int64_t size() const { return int64_t(header.size_bytes()); }
    int64_t end() const { return position + size(); }
};

struct file_batch_reader_options {
    bool verify_crc = false;
    // Keep each batch's whole bytes readable through batch_bytes().
    bool load_bytes = false;
};

class file_batch_reader {
  public:
    file_batch_reader(const file_handle& file, int64_t start, int64_t end,
                      file_batch_reader_options options = {});

    // The next batch; nullopt once stopped (see stop()).
    result<std::optional<file_batch>> next();

    // The bytes of the batch next() returned last (with verify_crc or load_bytes);
    // valid until the following next().
    bytes_view batch_bytes() const { return _last_bytes; }

    scan_stop stop() const { return _stop; }
    const std::string& stop_reason() const { return _reason; }
    int64_t valid_end() const { return _pos; }

  private:
    // Makes [pos, pos + need) available in the buffer; returns how many of those
    // bytes exist before the region's end.
    result<size_t> fill(int64_t pos, size_t need);
    std::optional<file_batch> halt(scan_stop why, std::string reason);

    const file_handle& _file;
    int64_t _pos;
    int64_t _end;
    file_batch_reader_options _options;
    bytes _buf;
    int64_t _buf_start = 0;
    size_t _buf_len = 0;
    // Read size: small at first (a lookup reads a header or two), doubling
    // while the scan proceeds through contiguous bytes (small batches).
    size_t _chunk = 1024;
    bytes_view _last_bytes;
    scan_stop _stop = scan_stop::none;
    std::string _reason;
};

}  // namespace samsa::storage
