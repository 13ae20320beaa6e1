// libFuzzer target: record bytes as clients and replicas send them. The first
// byte picks the path:
//   0  a v2 batch, validated as a client append (records decoded, each codec)
//   1  a v2 batch, validated as a replica append, then its records iterated
//   2  a Produce v0-v2 message set (magic 0/1, wrappers, nested codecs)
//   3  a Produce partition's records for v3+ (exactly one v2 batch)
//   4-8 raw input to decompress with codec (none, gzip, snappy, lz4, zstd)
//   9  lz4 with the magic-0 header checksum fix
#include <cstddef>
#include <cstdint>

#include "record/batch_iterator.h"
#include "record/batch_validator.h"
#include "record/compression.h"
#include "record/legacy_message_set.h"
#include "record/record.h"

using namespace samsa;

namespace {

constexpr size_t k_max_output = 4 << 20;  // keep one input's work small

record::validation_options options(record::append_origin origin) {
    record::validation_options o;
    o.origin = origin;
    o.now_ms = 1'700'000'000'000;
    o.max_uncompressed_bytes = k_max_output;
    o.compacted = true;
    return o;
}

void iterate(bytes_view batch) {
    auto it = record::record_iterator::open(batch, k_max_output);
    if (!it) {
        return;
    }
    record::record r;
    for (int i = 0; i < 100000; ++i) {
        auto more = it->next(r);
        if (!more || !*more) {
            return;
        }
        (void)it->timestamp_of(r);
        (void)it->offset_of(r);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) {
        return 0;
    }
    const uint8_t mode = data[0] % 10;
    bytes_view in(data + 1, size - 1);
    switch (mode) {
        case 0:
            (void)record::validate_batch(in, options(record::append_origin::client));
            break;
        case 1:
            if (record::validate_batch(in, options(record::append_origin::replication)).ok()) {
                iterate(in);
            }
            break;
        case 2:
            (void)record::legacy_message_set::parse(in, options(record::append_origin::client));
            break;
        case 3:
            if (auto p = record::validate_produce_records(in, 9); p && !p->data.empty()) {
                (void)record::validate_batch(p->data, options(record::append_origin::client));
            }
            break;
        case 9:
            (void)record::decompress_lz4_ignoring_header_checksum(in, k_max_output);
            break;
        default:
            (void)record::decompress(record::compression(mode - 4), in, k_max_output);
            break;
    }
    return 0;
}
