#pragma once
// What the classic group APIs ask of the group coordinator and what it
// answers, in the coordinator's own terms (JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup, ListGroups, DescribeGroups). The handlers in server/ turn the
// wire's versions into these and back, so the coordinator does not depend on
// the generated wire structs and a new protocol version touches only its
// handler.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/bytes.h"
#include "common/error.h"
#include "coordinator/group/consumer_group_member.h"

namespace samsa::coordinator {

// What a request carries besides its body.
struct request_origin {
    std::string client_id;
    std::string client_host;  // "/127.0.0.1", as Kafka prints InetAddress
    int16_t api_version = 0;
};

// One assignment protocol a member supports, with its metadata (for
// consumers, the serialised subscription).

struct join_group_params {
    std::string group_id;
    int32_t session_timeout_ms = 0;
    // JoinGroup v0 has none: the handler passes the session timeout.
    int32_t rebalance_timeout_ms = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string protocol_type;
    std::vector<member_protocol> protocols;  // in the member's preference order
    std::optional<std::string> reason;       // KIP-800
};

struct join_group_result {
    struct member {
        std::string member_id;
        std::optional<std::string> group_instance_id;
        bytes metadata;
    };
    error_code error = error_code::none;
    int32_t generation_id = -1;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name = std::string{};
    std::string leader;
    bool skip_assignment = false;  // KIP-814
    std::string member_id;
    std::vector<member> members;  // the leader's answer only
};

struct sync_group_params {
    std::string group_id;
    int32_t generation_id = 0;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    // The leader's assignment: member id and its bytes, as sent.
    std::vector<std::pair<std::string, bytes>> assignments;
};

struct sync_group_result {
    error_code error = error_code::none;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    bytes assignment;
};

struct heartbeat_params {
    std::string group_id;
    int32_t generation_id = 0;
    std::string member_id;
    std::optional<std::string> group_instance_id;
};

// A member LeaveGroup names (v3+ names several; v0-v2 the one member id).
struct leaving_member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> reason;
};

struct leave_group_result {
    struct member {
        std::string member_id;
        std::optional<std::string> group_instance_id;
        error_code error = error_code::none;
    };
    error_code error = error_code::none;  // group level
    std::vector<member> members;
};

struct listed_group {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;
    std::string group_type;
};

struct described_group {
    struct member {
        std::string member_id;
        std::optional<std::string> group_instance_id;
        std::string client_id;
        std::string client_host;
        bytes member_metadata;
        bytes member_assignment;
    };
    error_code error = error_code::none;
    std::string group_id;
    std::string group_state;
    std::string protocol_type;
    std::string protocol_data;
    std::vector<member> members;
};

// ConsumerGroupHeartbeat (KIP-848). Optional fields are null when they did
// not change since the member's last heartbeat.
struct consumer_group_heartbeat_params {
    std::string group_id;
    std::string member_id;
    // 0 joins, -1 leaves, -2 leaves for now (a static member that returns).
    int32_t member_epoch = 0;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t rebalance_timeout_ms = -1;
    std::optional<std::vector<std::string>> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    std::optional<std::string> server_assignor;
    std::optional<topic_assignment> owned;
};

struct consumer_group_heartbeat_result {
    error_code error = error_code::none;
    std::optional<std::string> error_message;
    std::string member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    // What the member may consume now; only when it changed or was asked for.
    std::optional<topic_assignment> assignment;
};

// ConsumerGroupDescribe (KIP-848).
struct described_consumer_group {
    struct member {
        std::string member_id;
        std::optional<std::string> instance_id;
        std::optional<std::string> rack_id;
        int32_t member_epoch = 0;
        std::string client_id;
        std::string client_host;
        std::vector<std::string> subscribed_topic_names;
        std::optional<std::string> subscribed_topic_regex;
        topic_assignment assignment;
        topic_assignment target_assignment;
    };
    error_code error = error_code::none;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<member> members;
};

}  // namespace samsa::coordinator
