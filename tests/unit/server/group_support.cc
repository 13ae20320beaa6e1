// The group helpers of the handler tests (group_support.h).
#include "group_support.h"

#include "protocol/generated/consumer_protocol_subscription.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"

namespace samsa::server::test {

namespace {

bool coordinator_busy(int16_t code) {
    auto ec = error_code(code);
    return ec == error_code::coordinator_load_in_progress ||
           ec == error_code::coordinator_not_available || ec == error_code::not_coordinator;
}

}  // namespace

bool ensure_group_coordinator(broker_fixture& b) {
    static bool ready = false;
    if (ready) {
        return true;
    }
    protocol::find_coordinator_request fc;
    fc.key_type = 0;
    fc.coordinator_keys = {"samsa-unit-warm-up"};
    const bool found = broker_fixture::wait_until([&] {
        auto resp = b.call<protocol::find_coordinator_response>(fc, 4);
        return resp.coordinators.size() == 1 && resp.coordinators[0].error_code == 0;
    });
    protocol::describe_groups_request dg;
    dg.groups = {"samsa-unit-warm-up"};
    ready = found && broker_fixture::wait_until([&] {
                auto resp = b.call<protocol::describe_groups_response>(dg, 5);
                return resp.groups.size() == 1 && !coordinator_busy(resp.groups[0].error_code);
            });
    return ready;
}

bytes subscription(const std::vector<std::string>& topics) {
    protocol::consumer_protocol_subscription sub;
    sub.topics = topics;
    protocol::writer w;
    w.write_int16(0);  // the consumer protocol's version header
    sub.encode(w, 0);
    return std::move(w.buffer());
}

protocol::join_group_request join_request(const std::string& group, const std::string& member_id,
                                          const std::vector<std::string>& topics,
                                          const std::string& protocol_type) {
    protocol::join_group_request req;
    req.group_id = group;
    req.member_id = member_id;
    req.session_timeout_ms = k_session_timeout_ms;
    req.rebalance_timeout_ms = k_session_timeout_ms;
    req.protocol_type = protocol_type;
    auto& p = req.protocols.emplace_back();
    p.name = "range";
    p.metadata = subscription(topics);
    return req;
}

protocol::join_group_response join(broker_fixture& b, const protocol::join_group_request& req,
                                   int16_t version) {
    protocol::join_group_response resp;
    broker_fixture::wait_until([&] {
        resp = b.call<protocol::join_group_response>(req, version);
        return !coordinator_busy(resp.error_code);
    });
    return resp;
}

group_member join_stable(broker_fixture& b, const std::string& group,
                         const std::vector<std::string>& topics, const std::string& protocol_type) {
    auto first = join(b, join_request(group, "", topics, protocol_type));
    if (first.error_code != int16_t(error_code::member_id_required) || first.member_id.empty()) {
        ADD_FAILURE() << "JoinGroup v5 without a member id answered "
                      << error_name(error_code(first.error_code));
        return {};
    }
    auto joined = join(b, join_request(group, first.member_id, topics, protocol_type));
    if (joined.error_code != 0) {
        ADD_FAILURE() << "JoinGroup answered " << error_name(error_code(joined.error_code));
        return {};
    }
    EXPECT_EQ(joined.leader, joined.member_id);
    protocol::sync_group_request sync;
    sync.group_id = group;
    sync.generation_id = joined.generation_id;
    sync.member_id = joined.member_id;
    sync.protocol_type = protocol_type;
    sync.protocol_name = "range";
    auto& a = sync.assignments.emplace_back();
    a.member_id = joined.member_id;
    a.assignment = bytes{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};  // v0, no partitions
    auto synced = b.call<protocol::sync_group_response>(sync, 5);
    if (synced.error_code != 0) {
        ADD_FAILURE() << "SyncGroup answered " << error_name(error_code(synced.error_code));
        return {};
    }
    return {joined.member_id, joined.generation_id};
}

int16_t commit(broker_fixture& b, const std::string& group, const std::string& topic,
               int32_t partition, int64_t offset, const group_member& m,
               const std::optional<std::string>& metadata) {
    protocol::offset_commit_request req;
    req.group_id = group;
    req.generation_id_or_member_epoch = m.generation;
    req.member_id = m.member_id;
    auto& t = req.topics.emplace_back();
    t.name = topic;
    auto& p = t.partitions.emplace_back();
    p.partition_index = partition;
    p.committed_offset = offset;
    p.committed_metadata = metadata;
    int16_t code = 0;
    broker_fixture::wait_until([&] {
        auto resp = b.call<protocol::offset_commit_response>(req, 8);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "OffsetCommit answered an unexpected shape";
            code = int16_t(error_code::unknown_server_error);
            return true;
        }
        code = resp.topics[0].partitions[0].error_code;
        return !coordinator_busy(code);
    });
    return code;
}

}  // namespace samsa::server::test
