// libFuzzer target: one request frame as the broker reads it off a socket
// (after the 4-byte size): the request header, then the body decoded by the
// generated decoder of its api and version, then (Produce) each partition's
// records through the validation a leader applies before appending.
#include <cstddef>
#include <cstdint>

#include "protocol/generated/api_table.h"
#include "protocol/generated/body_decoders.h"
#include "protocol/generated/produce_request.h"
#include "protocol/reader.h"
#include "protocol/tagged_fields.h"
#include "record/batch_validator.h"
#include "record/legacy_message_set.h"

using namespace samsa;

namespace {

void validate_records(const protocol::produce_request& req, int16_t version) {
    for (const auto& t : req.topic_data) {
        for (const auto& p : t.partition_data) {
            bytes_view raw = p.records.contiguous();
            auto checked = record::validate_produce_records(raw, version);
            if (!checked) {
                continue;
            }
            record::validation_options o;
            o.now_ms = 1'700'000'000'000;
            if (checked->magic == record::current_magic) {
                (void)record::validate_batch(checked->data, o);
            } else if (!checked->data.empty()) {
                (void)record::legacy_message_set::parse(checked->data, o);
            }
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    protocol::reader r(bytes_view(data, size));
    const int16_t key = r.read_int16();
    const int16_t version = r.read_int16();
    (void)r.read_int32();  // correlation id
    const auto* schema = protocol::find_api_schema(key);
    if (!r.ok() || !schema || version < schema->min_version || version > schema->max_version) {
        return 0;  // the broker closes the connection before decoding the body
    }
    const int16_t header_version = protocol::request_header_version(key, version);
    if (header_version >= 1) {
        (void)r.read_nullable_string();
    }
    if (header_version >= 2) {
        protocol::unknown_tagged_fields ignored;
        r.read_tagged_fields(
            [&](uint32_t tag, uint32_t size) { r.store_unknown_tag(ignored, tag, size); });
    }
    if (!r.ok()) {
        return 0;
    }
    const size_t body_at = size - r.remaining();
    protocol::reader body(bytes_view(data + body_at, size - body_at));
    if (key == int16_t(protocol::api_key::produce)) {
        protocol::produce_request req;
        req.decode(body, version);
        if (body.ok()) {
            validate_records(req, version);
        }
        return 0;
    }
    (void)protocol::decode_request_body(key, version, body);
    return 0;
}
