// libFuzzer target: the records coordinators read back when they load a
// partition. The first byte picks the part; the rest is its bytes:
//   0  a TransactionLogKey (int16 version, then the key)
//   1  a TransactionLogValue (int16 version, then the value), re-encoded
//      when it decodes, and the re-encoding must decode to the same state
//   2  a consumer group record of __consumer_offsets (KIP-848): the next
//      byte picks the key version (3-8), the one after splits key from
//      value (255: a tombstone); a record that decodes is written again by
//      the coordinator's own builder and must decode to the same record
//   3  a classic member's embedded consumer protocol, as JoinGroup and the
//      group metadata carry it: a ConsumerProtocolSubscription, and the
//      same bytes as a ConsumerProtocolAssignment, which, re-encoded by the
//      coordinator in its version, must decode to the same partitions
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/consumer_protocol.h"
#include "coordinator/txn/transaction_log_serde.h"

using namespace samsa;
using namespace samsa::coordinator;
using namespace samsa::coordinator::txn;

namespace {

void check_transaction_log(bytes_view body, bool value) {
    if (!value) {
        (void)decode_transaction_log_key(body);
        return;
    }
    auto m = decode_transaction_log_value(body);
    if (!m) {
        return;
    }
    auto again = decode_transaction_log_value(encode_transaction_log_value(*m));
    if (!again || again->producer_id != m->producer_id ||
        again->producer_epoch != m->producer_epoch || again->state != m->state ||
        again->partitions != m->partitions || again->txn_timeout_ms != m->txn_timeout_ms) {
        std::abort();
    }
}

// The record as the coordinator would write it now.
std::optional<coordinator_record> rewrite(const consumer_group_record& r) {
    switch (r.key_version) {
        case consumer_group_metadata_key_version:
            return consumer_group_epoch_record(r.group_id, r.epoch);
        case consumer_group_target_metadata_key_version:
            return consumer_group_target_epoch_record(r.group_id, r.epoch);
        case consumer_group_target_member_key_version:
            return consumer_group_target_member_record(r.group_id, r.member_id, r.target);
        case consumer_group_member_metadata_key_version:
        case consumer_group_current_assignment_key_version: {
            consumer_group_member m = r.member.clone();
            m.member_id = r.member_id;
            return r.key_version == consumer_group_member_metadata_key_version
                       ? consumer_group_member_record(r.group_id, m)
                       : consumer_group_current_assignment_record(r.group_id, m);
        }
        default:
            return std::nullopt;
    }
}

bool same(const consumer_group_record& a, const consumer_group_record& b) {
    const auto& x = a.member;
    const auto& y = b.member;
    return a.group_id == b.group_id && a.member_id == b.member_id && a.epoch == b.epoch &&
           a.target == b.target && x.instance_id == y.instance_id && x.rack_id == y.rack_id &&
           x.client_id == y.client_id && x.client_host == y.client_host &&
           x.subscribed_topic_names == y.subscribed_topic_names &&
           x.subscribed_topic_regex == y.subscribed_topic_regex &&
           x.server_assignor == y.server_assignor &&
           x.rebalance_timeout_ms == y.rebalance_timeout_ms && x.member_epoch == y.member_epoch &&
           x.previous_member_epoch == y.previous_member_epoch && x.state == y.state &&
           x.assigned == y.assigned && x.pending_revocation == y.pending_revocation &&
           x.classic == y.classic;
}

void check_consumer_group_record(const uint8_t* data, size_t size) {
    if (size < 2) {
        return;
    }
    const int16_t version = int16_t(consumer_group_metadata_key_version + data[0] % 6);
    const size_t split = data[1] == 255 ? size - 2 : std::min<size_t>(data[1], size - 2);
    const bytes_view key(data + 2, split);
    std::optional<bytes_view> value;
    if (data[1] != 255) {
        value = bytes_view(data + 2 + split, size - 2 - split);
    }
    auto r = decode_consumer_group_record(version, key, value);
    if (!r || r->tombstone) {
        return;
    }
    auto again = rewrite(*r);
    if (!again) {
        return;
    }
    std::optional<bytes_view> v;
    if (again->value) {
        v = bytes_view(*again->value);
    }
    auto back = decode_consumer_group_record(version, again->key, v);
    if (!back || !same(*r, *back)) {
        std::abort();
    }
}

// Partitions by topic name, as the embedded protocol carries them.
std::map<std::string, std::set<int32_t>> by_topic(const protocol::consumer_protocol_assignment& a) {
    std::map<std::string, std::set<int32_t>> out;
    for (const auto& tp : a.assigned_partitions) {
        out[tp.topic].insert(tp.partitions.begin(), tp.partitions.end());
    }
    std::erase_if(out, [](const auto& kv) { return kv.second.empty(); });
    return out;
}

void check_consumer_protocol(bytes_view data) {
    (void)decode_consumer_subscription(data);
    auto a = decode_consumer_assignment(data);
    if (!a) {
        return;
    }
    // One made-up id per topic name, as the coordinator's metadata would.
    std::map<std::string, uuid> ids;
    std::map<uuid, std::string> names;
    topic_assignment assigned;
    for (const auto& [topic, parts] : by_topic(*a)) {
        uuid id;
        id.data[15] = uint8_t(ids.size() + 1);
        id.data[14] = uint8_t((ids.size() + 1) >> 8);
        ids[topic] = id;
        names[id] = topic;
        assigned[id] = parts;
    }
    auto back = decode_consumer_assignment(
        encode_consumer_assignment(assigned, names, *consumer_protocol_version(data)));
    if (!back || by_topic(*back) != by_topic(*a)) {
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) {
        return 0;
    }
    switch (data[0] % 4) {
        case 0:
            check_transaction_log(bytes_view(data + 1, size - 1), false);
            break;
        case 1:
            check_transaction_log(bytes_view(data + 1, size - 1), true);
            break;
        case 2:
            check_consumer_group_record(data + 1, size - 1);
            break;
        default:
            check_consumer_protocol(bytes_view(data + 1, size - 1));
            break;
    }
    return 0;
}
