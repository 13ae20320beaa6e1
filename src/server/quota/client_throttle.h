#pragma once
// Who waits out a throttle (KIP-219). From these versions of each API the
// client reads throttle_time_ms and holds its next request back itself, so
// the broker answers at once and only stops reading the connection; an older
// client, or an API that never learnt to, gets its answer that much later
// instead. Kafka's AbstractResponse.shouldClientThrottle, per response.
#include <cstdint>

namespace samsa::server::quota {

// The first version of `api_key` whose client backs off by itself; -1: none.
constexpr int16_t first_client_throttling_version(int16_t api_key) {
    switch (api_key) {
        case 0:  // Produce
            return 6;
        case 1:  // Fetch
            return 8;
        case 2:  // ListOffsets
            return 3;
        case 3:  // Metadata
            return 6;
        case 8:  // OffsetCommit
        case 9:  // OffsetFetch
            return 4;
        case 10:  // FindCoordinator
        case 12:  // Heartbeat
        case 13:  // LeaveGroup
        case 14:  // SyncGroup
        case 15:  // DescribeGroups
        case 16:  // ListGroups
        case 18:  // ApiVersions
        case 20:  // DeleteTopics
        case 32:  // DescribeConfigs
            return 2;
        case 11:  // JoinGroup
        case 19:  // CreateTopics
            return 3;
        case 21:  // DeleteRecords
        case 22:  // InitProducerId
        case 24:  // AddPartitionsToTxn
        case 25:  // AddOffsetsToTxn
        case 26:  // EndTxn
        case 28:  // TxnOffsetCommit
        case 29:  // DescribeAcls
        case 30:  // CreateAcls
        case 31:  // DeleteAcls
        case 33:  // AlterConfigs
        case 34:  // AlterReplicaLogDirs
        case 35:  // DescribeLogDirs
        case 37:  // CreatePartitions
        case 38:  // CreateDelegationToken
        case 39:  // RenewDelegationToken
        case 40:  // ExpireDelegationToken
        case 41:  // DescribeDelegationToken
        case 42:  // DeleteGroups
            return 1;
        case 43:  // ElectLeaders
        case 44:  // IncrementalAlterConfigs
        case 45:  // AlterPartitionReassignments
        case 46:  // ListPartitionReassignments
        case 47:  // OffsetDelete
        case 50:  // DescribeUserScramCredentials
        case 51:  // AlterUserScramCredentials
        case 62:  // BrokerRegistration
        case 63:  // BrokerHeartbeat
        case 64:  // UnregisterBroker
        case 75:  // DescribeTopicPartitions
            return 0;
        default:
            return -1;
    }
}

constexpr bool client_backs_off(int16_t api_key, int16_t version) {
    const int16_t first = first_client_throttling_version(api_key);
    return first >= 0 && version >= first;
}

}  // namespace samsa::server::quota
