// libFuzzer target: what the metadata quorum reads from peers and from its
// own files. The first byte picks the decoder:
//   0  a KRaft request body (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch,
//      FetchSnapshot: byte 1 picks the api, byte 2 the version)
//   1  a KRaft response body, likewise
//   2  the quorum-state file (JSON)
//   3  record batches of the metadata log or of a snapshot
//   4  one metadata record (a record value of the metadata log)
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "metadata/metadata_record_serde.h"
#include "protocol/generated/api_table.h"
#include "raft/quorum_state_file.h"
#include "raft/raft_batch_codec.h"
#include "raft/raft_wire.h"

using namespace samsa;

namespace {

constexpr int16_t k_raft_apis[] = {52, 53, 54, 1, 59};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 3) {
        return 0;
    }
    const uint8_t mode = data[0] % 5;
    bytes_view rest(data + 1, size - 1);
    switch (mode) {
        case 0:
        case 1: {
            const int16_t key = k_raft_apis[data[1] % 5];
            const auto* schema = protocol::find_api_schema(key);
            const int16_t span = int16_t(schema->max_version - schema->min_version + 1);
            const int16_t version = int16_t(schema->min_version + data[2] % span);
            bytes_view body(data + 3, size - 3);
            if (mode == 0) {
                std::optional<std::string> cluster_id;
                (void)raft::decode_raft_request(key, version, body, cluster_id);
            } else {
                (void)raft::decode_raft_response(key, version, body, 7);
            }
            break;
        }
        case 2:
            (void)raft::decode_quorum_state_json(
                std::string_view(reinterpret_cast<const char*>(rest.data()), rest.size()));
            break;
        case 3:
            (void)raft::decode_record_batches(rest);
            break;
        case 4:
            (void)metadata::decode_metadata_record(rest);
            break;
    }
    return 0;
}
