#pragma once
// The KRaft RPCs on the wire: raft_message <-> Kafka's Vote, BeginQuorumEpoch,
// EndQuorumEpoch, Fetch and FetchSnapshot messages for the one metadata
// partition (`__cluster_metadata`-0, topic id METADATA_TOPIC_ID), as KIP-595 and
// KIP-630 carry them.
//
// Outbound, a replica's requests go out in fixed versions (raft_wire_version);
// inbound, every version the schemas define is read and answered in the
// request's version. The correlation id of a raft_message is the caller's to
// set: the transport keeps its own numbering per connection.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/bytes.h"
#include "common/result.h"
#include "common/uuid.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "raft/raft_messages.h"

namespace samsa::raft {

inline constexpr std::string_view metadata_topic_name = "__cluster_metadata";
// Kafka's Uuid.METADATA_TOPIC_ID: 0...01.
uuid metadata_topic_id();

// An encoded request body and its api key and version.
struct wire_request {
    int16_t api_key = 0;
    int16_t api_version = 0;
    bytes body;
};

// The api key that carries `m` (Vote 52, BeginQuorumEpoch 53, EndQuorumEpoch 54,
// Fetch 1, FetchSnapshot 59).
int16_t raft_api_key(const raft_message& m);
bool is_raft_api(int16_t api_key);

// A request of ours, encoded for the wire (requests only).
wire_request encode_raft_request(const raft_message& request, const std::string& cluster_id);
// The answer to one of our requests (`api_key`/`version` as we sent it).
// CORRUPT_MESSAGE when the body does not decode or names another partition.
result<raft_message> decode_raft_response(int16_t api_key, int16_t version, bytes_view body,
                                          int32_t correlation_id);

// A peer's request (not Fetch: see below). The cluster id it carries, when it
// carries one, goes to `cluster_id`. CORRUPT_MESSAGE when the body does not
// decode; INVALID_REQUEST when a Vote, BeginQuorumEpoch or EndQuorumEpoch is
// not for __cluster_metadata-0 alone (Kafka answers that, at the top level).
result<raft_message> decode_raft_request(int16_t api_key, int16_t version, bytes_view body,
                                         std::optional<std::string>& cluster_id);
// Our answer to a peer's request, in the request's version.
bytes encode_raft_response(const raft_message& response, int16_t version);
// An answer that is only an error (wrong cluster id, not a voter, ...).
bytes encode_raft_error_response(int16_t api_key, int16_t version, error_code error);
// Kafka's answer to a FetchSnapshot of another partition than
// __cluster_metadata-0 (decode_raft_request's UNKNOWN_TOPIC_OR_PARTITION):
// that partition, named, with UNKNOWN_TOPIC_OR_PARTITION.
bytes encode_unknown_snapshot_partition(bytes_view request_body, int16_t version);

// Fetch arrives through the Fetch handler, which serves data partitions too.
bool is_metadata_fetch(const protocol::fetch_request& r);
raft_message raft_fetch_from_wire(const protocol::fetch_request& r);
protocol::fetch_response raft_fetch_to_wire(const fetch_response& r);

}  // namespace samsa::raft
