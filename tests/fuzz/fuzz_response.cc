// libFuzzer target: a response body from another node (replica fetches,
// forwarded admin requests, registrations, heartbeats), decoded by the
// generated decoder of its api and version. Input: int16 api key, int16
// version, then the body.
#include <cstddef>
#include <cstdint>

#include "protocol/generated/api_table.h"
#include "protocol/generated/body_decoders.h"
#include "protocol/reader.h"

using namespace samsa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    protocol::reader r(bytes_view(data, size));
    const int16_t key = r.read_int16();
    const int16_t version = r.read_int16();
    const auto* schema = protocol::find_api_schema(key);
    if (!r.ok() || !schema || version < schema->min_version || version > schema->max_version) {
        return 0;
    }
    protocol::reader body(bytes_view(data + 4, size - 4));
    (void)protocol::decode_response_body(key, version, body);
    return 0;
}
