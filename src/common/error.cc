#include "common/error.h"

namespace samsa {

namespace {

struct error_info {
    error_code code;
    std::string_view name;
    std::string_view message;
    bool retriable;
};

constexpr error_info k_errors[] = {
    {error_code::unknown_server_error, "UNKNOWN_SERVER_ERROR", "The server experienced an unexpected error when processing the request.", false},
    {error_code::none, "NONE", "", false},
    {error_code::offset_out_of_range, "OFFSET_OUT_OF_RANGE", "The requested offset is not within the range of offsets maintained by the server.", false},
    {error_code::corrupt_message, "CORRUPT_MESSAGE", "This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.", true},
    {error_code::unknown_topic_or_partition, "UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition.", true},
    {error_code::invalid_fetch_size, "INVALID_FETCH_SIZE", "The requested fetch size is invalid.", false},
    {error_code::leader_not_available, "LEADER_NOT_AVAILABLE", "There is no leader for this topic-partition as we are in the middle of a leadership election.", true},
    {error_code::not_leader_or_follower, "NOT_LEADER_OR_FOLLOWER", "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.", true},
    {error_code::request_timed_out, "REQUEST_TIMED_OUT", "The request timed out.", true},
    {error_code::broker_not_available, "BROKER_NOT_AVAILABLE", "The broker is not available.", false},
    {error_code::replica_not_available, "REPLICA_NOT_AVAILABLE", "The replica is not available for the requested topic-partition.", true},
    {error_code::message_too_large, "MESSAGE_TOO_LARGE", "The request included a message larger than the max message size the server will accept.", false},
    {error_code::stale_controller_epoch, "STALE_CONTROLLER_EPOCH", "Stale controller epoch.", false},
    {error_code::offset_metadata_too_large, "OFFSET_METADATA_TOO_LARGE", "Offset metadata too large.", false},
    {error_code::network_exception, "NETWORK_EXCEPTION", "Network exception.", true},
    {error_code::coordinator_load_in_progress, "COORDINATOR_LOAD_IN_PROGRESS", "The coordinator is loading and hence can't process requests.", true},
    {error_code::coordinator_not_available, "COORDINATOR_NOT_AVAILABLE", "The coordinator is not available.", true},
    {error_code::not_coordinator, "NOT_COORDINATOR", "This is not the correct coordinator.", true},
    {error_code::invalid_topic_exception, "INVALID_TOPIC_EXCEPTION", "The request attempted to perform an operation on an invalid topic.", false},
    {error_code::record_list_too_large, "RECORD_LIST_TOO_LARGE", "The request included message batch larger than the configured segment size on the server.", true},
    {error_code::not_enough_replicas, "NOT_ENOUGH_REPLICAS", "Messages are rejected since there are fewer in-sync replicas than required.", true},
    {error_code::not_enough_replicas_after_append, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "Messages are written to the log, but to fewer in-sync replicas than required.", true},
    {error_code::invalid_required_acks, "INVALID_REQUIRED_ACKS", "Produce request specified an invalid value for required acks.", false},
    {error_code::illegal_generation, "ILLEGAL_GENERATION", "Specified group generation id is not valid.", false},
    {error_code::inconsistent_group_protocol, "INCONSISTENT_GROUP_PROTOCOL", "Inconsistent group protocol.", false},
    {error_code::invalid_group_id, "INVALID_GROUP_ID", "Invalid group id.", false},
    {error_code::unknown_member_id, "UNKNOWN_MEMBER_ID", "The coordinator is not aware of this member.", false},
    {error_code::invalid_session_timeout, "INVALID_SESSION_TIMEOUT", "Invalid session timeout.", false},
    {error_code::rebalance_in_progress, "REBALANCE_IN_PROGRESS", "The group is rebalancing, so a rejoin is needed.", false},
    {error_code::invalid_commit_offset_size, "INVALID_COMMIT_OFFSET_SIZE", "Invalid commit offset size.", false},
    {error_code::topic_authorization_failed, "TOPIC_AUTHORIZATION_FAILED", "Topic authorization failed.", false},
    {error_code::group_authorization_failed, "GROUP_AUTHORIZATION_FAILED", "Group authorization failed.", false},
    {error_code::cluster_authorization_failed, "CLUSTER_AUTHORIZATION_FAILED", "Cluster authorization failed.", false},
    {error_code::invalid_timestamp, "INVALID_TIMESTAMP", "The timestamp of the message is out of acceptable range.", false},
    {error_code::unsupported_sasl_mechanism, "UNSUPPORTED_SASL_MECHANISM", "Unsupported sasl mechanism.", false},
    {error_code::illegal_sasl_state, "ILLEGAL_SASL_STATE", "Illegal sasl state.", false},
    {error_code::unsupported_version, "UNSUPPORTED_VERSION", "The version of API is not supported.", false},
    {error_code::topic_already_exists, "TOPIC_ALREADY_EXISTS", "Topic with this name already exists.", false},
    {error_code::invalid_partitions, "INVALID_PARTITIONS", "Number of partitions is below 1.", false},
    {error_code::invalid_replication_factor, "INVALID_REPLICATION_FACTOR", "Replication factor is below 1 or larger than the number of available brokers.", false},
    {error_code::invalid_replica_assignment, "INVALID_REPLICA_ASSIGNMENT", "Replica assignment is invalid.", false},
    {error_code::invalid_config, "INVALID_CONFIG", "Configuration is invalid.", false},
    {error_code::not_controller, "NOT_CONTROLLER", "This is not the correct controller for this cluster.", true},
    {error_code::invalid_request, "INVALID_REQUEST", "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.", false},
    {error_code::unsupported_for_message_format, "UNSUPPORTED_FOR_MESSAGE_FORMAT", "Unsupported for message format.", false},
    {error_code::policy_violation, "POLICY_VIOLATION", "Request parameters do not satisfy the configured policy.", false},
    {error_code::out_of_order_sequence_number, "OUT_OF_ORDER_SEQUENCE_NUMBER", "The broker received an out of order sequence number.", false},
    {error_code::duplicate_sequence_number, "DUPLICATE_SEQUENCE_NUMBER", "The broker received a duplicate sequence number.", false},
    {error_code::invalid_producer_epoch, "INVALID_PRODUCER_EPOCH", "Producer attempted to produce with an old epoch.", false},
    {error_code::invalid_txn_state, "INVALID_TXN_STATE", "Invalid txn state.", false},
    {error_code::invalid_producer_id_mapping, "INVALID_PRODUCER_ID_MAPPING", "Invalid producer id mapping.", false},
    {error_code::invalid_transaction_timeout, "INVALID_TRANSACTION_TIMEOUT", "Invalid transaction timeout.", false},
    {error_code::concurrent_transactions, "CONCURRENT_TRANSACTIONS", "Concurrent transactions.", true},
    {error_code::transaction_coordinator_fenced, "TRANSACTION_COORDINATOR_FENCED", "Transaction coordinator fenced.", false},
    {error_code::transactional_id_authorization_failed, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "Transactional id authorization failed.", false},
    {error_code::security_disabled, "SECURITY_DISABLED", "Security disabled.", false},
    {error_code::operation_not_attempted, "OPERATION_NOT_ATTEMPTED", "Operation not attempted.", false},
    {error_code::kafka_storage_error, "KAFKA_STORAGE_ERROR", "Disk error when trying to access log file on the disk.", true},
    {error_code::log_dir_not_found, "LOG_DIR_NOT_FOUND", "Log dir not found.", false},
    {error_code::sasl_authentication_failed, "SASL_AUTHENTICATION_FAILED", "Sasl authentication failed.", false},
    {error_code::unknown_producer_id, "UNKNOWN_PRODUCER_ID", "This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question.", false},
    {error_code::reassignment_in_progress, "REASSIGNMENT_IN_PROGRESS", "Reassignment in progress.", true},
    {error_code::delegation_token_auth_disabled, "DELEGATION_TOKEN_AUTH_DISABLED", "Delegation token auth disabled.", false},
    {error_code::delegation_token_not_found, "DELEGATION_TOKEN_NOT_FOUND", "Delegation token not found.", false},
    {error_code::delegation_token_owner_mismatch, "DELEGATION_TOKEN_OWNER_MISMATCH", "Delegation token owner mismatch.", false},
    {error_code::delegation_token_request_not_allowed, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", "Delegation token request not allowed.", false},
    {error_code::delegation_token_authorization_failed, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", "Delegation token authorization failed.", false},
    {error_code::delegation_token_expired, "DELEGATION_TOKEN_EXPIRED", "Delegation token expired.", false},
    {error_code::invalid_principal_type, "INVALID_PRINCIPAL_TYPE", "Invalid principal type.", false},
    {error_code::non_empty_group, "NON_EMPTY_GROUP", "The group is not empty.", false},
    {error_code::group_id_not_found, "GROUP_ID_NOT_FOUND", "The group id does not exist.", false},
    {error_code::fetch_session_id_not_found, "FETCH_SESSION_ID_NOT_FOUND", "The fetch session ID was not found.", true},
    {error_code::invalid_fetch_session_epoch, "INVALID_FETCH_SESSION_EPOCH", "The fetch session epoch is invalid.", true},
    {error_code::listener_not_found, "LISTENER_NOT_FOUND", "Listener not found.", true},
    {error_code::topic_deletion_disabled, "TOPIC_DELETION_DISABLED", "Topic deletion disabled.", false},
    {error_code::fenced_leader_epoch, "FENCED_LEADER_EPOCH", "The leader epoch in the request is older than the epoch on the broker.", true},
    {error_code::unknown_leader_epoch, "UNKNOWN_LEADER_EPOCH", "The leader epoch in the request is newer than the epoch on the broker.", true},
    {error_code::unsupported_compression_type, "UNSUPPORTED_COMPRESSION_TYPE", "The requesting client does not support the compression type of given partition.", false},
    {error_code::stale_broker_epoch, "STALE_BROKER_EPOCH", "Stale broker epoch.", false},
    {error_code::offset_not_available, "OFFSET_NOT_AVAILABLE", "Offset not available.", true},
    {error_code::member_id_required, "MEMBER_ID_REQUIRED", "The group member needs to have a valid member id before actually entering a consumer group.", false},
    {error_code::preferred_leader_not_available, "PREFERRED_LEADER_NOT_AVAILABLE", "Preferred leader not available.", true},
    {error_code::group_max_size_reached, "GROUP_MAX_SIZE_REACHED", "Group max size reached.", false},
    {error_code::fenced_instance_id, "FENCED_INSTANCE_ID", "The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.", false},
    {error_code::eligible_leaders_not_available, "ELIGIBLE_LEADERS_NOT_AVAILABLE", "Eligible leaders not available.", true},
    {error_code::election_not_needed, "ELECTION_NOT_NEEDED", "Election not needed.", true},
    {error_code::no_reassignment_in_progress, "NO_REASSIGNMENT_IN_PROGRESS", "No reassignment in progress.", false},
    {error_code::group_subscribed_to_topic, "GROUP_SUBSCRIBED_TO_TOPIC", "Group subscribed to topic.", false},
    {error_code::invalid_record, "INVALID_RECORD", "This record has failed the validation on broker and hence will be rejected.", false},
    {error_code::unstable_offset_commit, "UNSTABLE_OFFSET_COMMIT", "Unstable offset commit.", true},
    {error_code::throttling_quota_exceeded, "THROTTLING_QUOTA_EXCEEDED", "Throttling quota exceeded.", true},
    {error_code::producer_fenced, "PRODUCER_FENCED", "There is a newer producer with the same transactionalId which fences the current one.", false},
    {error_code::resource_not_found, "RESOURCE_NOT_FOUND", "Resource not found.", false},
    {error_code::duplicate_resource, "DUPLICATE_RESOURCE", "Duplicate resource.", false},
    {error_code::unacceptable_credential, "UNACCEPTABLE_CREDENTIAL", "Unacceptable credential.", false},
    {error_code::inconsistent_voter_set, "INCONSISTENT_VOTER_SET", "Inconsistent voter set.", false},
    {error_code::invalid_update_version, "INVALID_UPDATE_VERSION", "Invalid update version.", false},
    {error_code::feature_update_failed, "FEATURE_UPDATE_FAILED", "Feature update failed.", false},
    {error_code::principal_deserialization_failure, "PRINCIPAL_DESERIALIZATION_FAILURE", "Principal deserialization failure.", false},
    {error_code::snapshot_not_found, "SNAPSHOT_NOT_FOUND", "Snapshot not found.", false},
    {error_code::position_out_of_range, "POSITION_OUT_OF_RANGE", "Position out of range.", false},
    {error_code::unknown_topic_id, "UNKNOWN_TOPIC_ID", "This server does not host this topic ID.", true},
    {error_code::duplicate_broker_registration, "DUPLICATE_BROKER_REGISTRATION", "Duplicate broker registration.", false},
    {error_code::broker_id_not_registered, "BROKER_ID_NOT_REGISTERED", "Broker id not registered.", false},
    {error_code::inconsistent_topic_id, "INCONSISTENT_TOPIC_ID", "Inconsistent topic id.", true},
    {error_code::inconsistent_cluster_id, "INCONSISTENT_CLUSTER_ID", "Inconsistent cluster id.", false},
    {error_code::transactional_id_not_found, "TRANSACTIONAL_ID_NOT_FOUND", "Transactional id not found.", false},
    {error_code::fetch_session_topic_id_error, "FETCH_SESSION_TOPIC_ID_ERROR", "Fetch session topic id error.", true},
    {error_code::ineligible_replica, "INELIGIBLE_REPLICA", "Ineligible replica.", false},
    {error_code::new_leader_elected, "NEW_LEADER_ELECTED", "New leader elected.", false},
    {error_code::offset_moved_to_tiered_storage, "OFFSET_MOVED_TO_TIERED_STORAGE", "Offset moved to tiered storage.", true},
    {error_code::fenced_member_epoch, "FENCED_MEMBER_EPOCH", "Fenced member epoch.", false},
    {error_code::unreleased_instance_id, "UNRELEASED_INSTANCE_ID", "Unreleased instance id.", false},
    {error_code::unsupported_assignor, "UNSUPPORTED_ASSIGNOR", "Unsupported assignor.", false},
    {error_code::stale_member_epoch, "STALE_MEMBER_EPOCH", "Stale member epoch.", false},
    {error_code::mismatched_endpoint_type, "MISMATCHED_ENDPOINT_TYPE", "Mismatched endpoint type.", false},
    {error_code::unsupported_endpoint_type, "UNSUPPORTED_ENDPOINT_TYPE", "Unsupported endpoint type.", false},
    {error_code::unknown_controller_id, "UNKNOWN_CONTROLLER_ID", "Unknown controller id.", true},
    {error_code::unknown_subscription_id, "UNKNOWN_SUBSCRIPTION_ID", "Unknown subscription id.", false},
    {error_code::telemetry_too_large, "TELEMETRY_TOO_LARGE", "Telemetry too large.", false},
    {error_code::invalid_registration, "INVALID_REGISTRATION", "Invalid registration.", false},
    {error_code::transaction_abortable, "TRANSACTION_ABORTABLE", "Transaction abortable.", false},
    {error_code::invalid_record_state, "INVALID_RECORD_STATE", "Invalid record state.", false},
    {error_code::share_session_not_found, "SHARE_SESSION_NOT_FOUND", "Share session not found.", false},
    {error_code::invalid_share_session_epoch, "INVALID_SHARE_SESSION_EPOCH", "Invalid share session epoch.", false},
    {error_code::fenced_state_epoch, "FENCED_STATE_EPOCH", "Fenced state epoch.", false},
    {error_code::invalid_voter_key, "INVALID_VOTER_KEY", "Invalid voter key.", false},
    {error_code::duplicate_voter, "DUPLICATE_VOTER", "Duplicate voter.", false},
    {error_code::voter_not_found, "VOTER_NOT_FOUND", "Voter not found.", false},
};

const error_info* find(error_code ec) {
    for (const auto& e : k_errors) {
        if (e.code == ec) {
            return &e;
        }
    }
    return nullptr;
}

}  // namespace

std::string_view error_name(error_code ec) {
    const auto* e = find(ec);
    return e ? e->name : "UNKNOWN_ERROR_CODE";
}

std::string_view error_message(error_code ec) {
    const auto* e = find(ec);
    return e ? e->message : "Unknown error code.";
}

bool error_is_retriable(error_code ec) {
    const auto* e = find(ec);
    return e && e->retriable;
}

}  // namespace samsa
