#pragma once
// The compression codecs of record batches, framed exactly as Kafka clients
// frame them (attributes bits 0-2 name the codec; 5-7 are invalid):
//
//  * gzip (1)   One RFC 1952 gzip member (zlib with the gzip wrapper), as Java's
//               GZIPOutputStream writes; nothing may follow it (librdkafka reads
//               only the first member).
//  * snappy (2) The Java client writes xerial snappy-java framing:
//                 8-byte magic  0x82 'S' 'N' 'A' 'P' 'P' 'Y' 0x00
//                 int32 BE version (1), int32 BE minimum compatible version (1)
//                 blocks: int32 BE compressed length, then raw snappy of <= 32 KiB
//               librdkafka may write one raw snappy buffer. Decompression takes
//               both: framed when the input starts with the magic, raw otherwise
//               (the same test snappy-java's SnappyInputStream makes). Framed
//               input is one header then whole blocks, as librdkafka reads it.
//  * lz4 (3)    The LZ4 frame format (lz4frame.h). Compression writes what the
//               Java client does: independent 64 KiB blocks, no content size,
//               no dictionary id. Decompression takes exactly one frame that
//               both Java's and librdkafka's readers take: version 01,
//               independent blocks, no dictionary id, nothing after it. Messages of magic 0 carry a
//               header checksum Kafka computed wrongly (KAFKA-3160): read them with
//               decompress_lz4_ignoring_header_checksum.
//  * zstd (4)   zstd frames, decoded with the streaming API because a frame need
//               not declare its content size.
//
// Every decoder accepts only what mainstream clients (Java, librdkafka) can
// read back: a batch one of them cannot decompress would stop every such
// consumer at its offset. Decompression is bounded: output beyond `max_output` bytes fails, so a
// small hostile input (a "zip bomb") cannot exhaust memory. Failures are values: CORRUPT_MESSAGE
// for undecodable or oversized input, UNSUPPORTED_COMPRESSION_TYPE for a codec id outside 0-4.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"

namespace samsa::record {

// What one batch may decompress to unless the caller says otherwise; the same
// as socket.request.max.bytes' default, so no batch expands beyond what one
// request could have carried uncompressed.
inline constexpr size_t default_max_uncompressed_bytes = 100 * 1024 * 1024;

// Kafka's default levels (compression.gzip.level, compression.lz4.level,
// compression.zstd.level; KIP-390).
inline constexpr int default_gzip_level = -1;  // zlib's default, 6
inline constexpr int default_lz4_level = 9;
inline constexpr int default_zstd_level = 3;

// The codec of attributes bits 0-2; ids 5-7 are UNSUPPORTED_COMPRESSION_TYPE.
result<compression> compression_from_id(int id);
// "none", "gzip", "snappy", "lz4", "zstd" (Kafka's CompressionType names).
std::string_view compression_name(compression c);
std::optional<compression> compression_from_name(std::string_view name);

// Compresses `in` with `codec` (none copies). `level`: the codec's level, or
// its Kafka default when absent. A level the codec rejects is INVALID_CONFIG.
result<bytes> compress(compression codec, bytes_view in, std::optional<int> level = {});

// Decompresses `in`; more than `max_output` bytes of output is CORRUPT_MESSAGE.
result<bytes> decompress(compression codec, bytes_view in,
                         size_t max_output = default_max_uncompressed_bytes);

// The two snappy framings, for tests and for writers that must pick one.
bytes snappy_compress_raw(bytes_view in);
bytes snappy_compress_xerial(bytes_view in, size_t block_size = 32 * 1024);
bool is_xerial_snappy(bytes_view in);

// LZ4 frames whose header checksum byte may be wrong (magic 0 messages).
result<bytes> decompress_lz4_ignoring_header_checksum(bytes_view in, size_t max_output);

// XXH32 of `data` (the LZ4 frame header checksum is byte 1 of XXH32 over the
// frame descriptor); exposed for tests.
uint32_t xxh32(bytes_view data, uint32_t seed = 0);

}  // namespace samsa::record
