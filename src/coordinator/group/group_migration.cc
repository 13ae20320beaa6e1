// Online migration between the classic and the consumer protocol (KIP-848;
// Kafka's GroupMetadataManager.convertToConsumerGroup / convertToClassicGroup,
// ConsumerGroup.fromClassicGroup, ClassicGroup.fromConsumerGroup).
//
// Upgrade: a consumer-protocol member joins a classic group that has
// members. The classic group goes (its GroupMetadata tombstoned) and a
// consumer group takes its place at its generation: each classic member
// becomes a classic member of it, Stable at that epoch, its target and
// current assignment what the last rebalance gave it. The joining member
// then bumps the epoch like any join; the classic members learn of it from
// their next Heartbeat (REBALANCE_IN_PROGRESS) and rejoin one by one.
//
// Downgrade: the last consumer-protocol member of a group whose other
// members are all classic leaves or is fenced. The consumer group goes (its
// records tombstoned) and a classic group of the remaining members takes
// its place at the group epoch, Stable, each member's assignment its target;
// it rebalances at once, so the members rejoin under the classic protocol.
//
// Both keep the group's committed offsets. docs/group-migration.md.
#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "coordinator/group/classic_group.h"
#include "coordinator/group/consumer_group_manager.h"
#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/consumer_protocol.h"
#include "coordinator/group/group_metadata_manager.h"
#include "coordinator/group/offsets_record_serde.h"

namespace samsa::coordinator {

result<std::shared_ptr<consumer_group>> consumer_group_manager::upgrade(
    shared_group& slot, const metadata::metadata_image& image,
    std::vector<coordinator_record>& out) {
    auto classic = as_classic(slot);
    const std::string group_id = classic->group_id();
    auto refuse = [&](const char* why) -> result<std::shared_ptr<consumer_group>> {
        logging::groups().info("event=group_upgrade_refused group={} reason=\"{}\"", group_id, why);
        return error(error_code::group_id_not_found,
                     "Group " + group_id + " is not a consumer group.");
    };
    if (!_config.consumer_migration_upgrade) {
        return refuse("group.consumer.migration.policy does not allow upgrades");
    }
    if (classic->protocol_type() != consumer_protocol_type) {
        return refuse("the group does not use the consumer protocol type");
    }
    if (classic->size() > size_t(_config.consumer_max_size)) {
        return refuse("the group has more members than group.consumer.max.size");
    }
    const int32_t generation = classic->generation_id();
    auto g = std::make_shared<consumer_group>(group_id);
    g->set_group_epoch(generation);
    g->set_assignment_epoch(generation);
    auto id_of = [&image](const std::string& name) {
        const auto* t = image.topic(name);
        return t ? std::optional<uuid>(t->id) : std::nullopt;
    };
    for (const auto& [id, cm] : classic->members()) {
        const bytes* metadata = cm->metadata(classic->protocol_name().value_or(""));
        auto subscription = metadata ? decode_consumer_subscription(*metadata) : std::nullopt;
        if (!subscription) {
            return refuse("a member's embedded consumer protocol does not parse");
        }
        topic_assignment assigned;
        if (!cm->assignment().empty()) {
            auto assignment = decode_consumer_assignment(cm->assignment());
            if (!assignment) {
                return refuse("a member's assignment does not parse");
            }
            assigned = to_topic_assignment(assignment->assigned_partitions, id_of);
        }
        // A partition has one owner; an assignment that names one twice
        // (a leader's mistake) gives it to the first member only.
        for (auto& [topic, parts] : assigned) {
            for (auto p = parts.begin(); p != parts.end();) {
                p = g->partition_epoch(topic, *p) != -1 ? parts.erase(p) : std::next(p);
            }
        }
        consumer_group_member m;
        m.member_id = id;
        m.instance_id = cm->group_instance_id();
        if (subscription->rack_id && !subscription->rack_id->empty()) {
            m.rack_id = subscription->rack_id;
        }
        m.client_id = cm->client_id();
        m.client_host = cm->client_host();
        m.subscribed_topic_names = subscription->topics;
        m.rebalance_timeout_ms = cm->rebalance_timeout_ms();
        m.classic = classic_member_metadata{cm->session_timeout_ms(), cm->protocols()};
        m.member_epoch = generation;
        m.previous_member_epoch = generation;
        m.state = member_state::stable;
        m.assigned = assigned;
        g->set_target(id, std::move(assigned));
        g->update_member(std::move(m));
    }
    for (const auto& [tp, om] : classic->offsets().all()) {
        g->offsets().put(tp, om);
    }
    // The classic group goes: its members' pending JoinGroup and SyncGroup
    // learn that another rebalance began, and its timers find it Dead.
    _classic.retire_group(*classic, error_code::rebalance_in_progress);
    out.push_back({encode_group_metadata_key(group_id), std::nullopt});
    // Kafka's createConsumerGroupRecords.
    for (const auto& [id, m] : g->members()) {
        out.push_back(consumer_group_member_record(group_id, m));
    }
    out.push_back(consumer_group_epoch_record(group_id, g->group_epoch()));
    for (const auto& [id, target] : g->target()) {
        out.push_back(consumer_group_target_member_record(group_id, id, target));
    }
    out.push_back(consumer_group_target_epoch_record(group_id, g->assignment_epoch()));
    for (const auto& [id, m] : g->members()) {
        out.push_back(consumer_group_current_assignment_record(group_id, m));
    }
    std::vector<std::string> ids;
    for (const auto& [id, m] : g->members()) {
        ids.push_back(id);
    }
    for (const auto& id : ids) {
        schedule_session(*g, *g->get(id));
    }
    logging::groups().info(
        "event=group_converted group={} from=classic to=consumer members={} "
        "epoch={}",
        group_id, g->size(), generation);
    slot = g;
    return g;
}

bool consumer_group_manager::may_downgrade(const consumer_group& g, const std::string& leaving,
                                           size_t staying) const {
    if (!g.all_members_use_classic_protocol_except(leaving)) {
        return false;
    }
    if (!_config.consumer_migration_downgrade) {
        logging::groups().info(
            "event=group_downgrade_refused group={} reason=\"group.consumer.migration.policy does "
            "not allow downgrades\"",
            g.group_id());
        return false;
    }
    if (staying > size_t(_config.max_size)) {
        logging::groups().info(
            "event=group_downgrade_refused group={} reason=\"more members than group.max.size\"",
            g.group_id());
        return false;
    }
    return true;
}

bool consumer_group_manager::maybe_downgrade(consumer_group& g, const std::string& leaving) {
    // Nobody would stay: the group just empties (and becomes classic when
    // a classic member next joins it).
    if (g.size() <= 1 || !may_downgrade(g, leaving, g.size() - 1)) {
        return false;
    }
    return downgrade(g, leaving, true) != nullptr;
}

std::shared_ptr<classic_group> consumer_group_manager::downgrade(consumer_group& g,
                                                                 const std::string& leaving,
                                                                 bool rebalance) {
    const std::string group_id = g.group_id();
    auto* part = _partitions.serving(group_id);
    if (!part) {
        return nullptr;
    }
    const int64_t now = _wall_clock();
    auto classic = std::make_shared<classic_group>(group_id, group_state::stable, now);
    classic->restore(g.group_epoch(), std::string(consumer_protocol_type), std::nullopt,
                     std::nullopt, now);
    std::optional<std::string> leader;
    for (const auto& [id, m] : g.members()) {
        if (id == leaving || !m.classic) {
            continue;
        }
        classic->restore_member(std::make_unique<group_member>(
            id, m.instance_id, m.client_id, m.client_host, m.rebalance_timeout_ms,
            m.classic->session_timeout_ms, consumer_protocol_type, m.classic->supported_protocols));
        if (!leader) {
            leader = id;
        }
    }
    const std::string protocol = classic->select_protocol();
    classic->restore(g.group_epoch(), std::string(consumer_protocol_type), protocol, leader, now);
    // Each member's assignment is its target, in the version of its
    // subscription.
    std::map<uuid, std::string> names;
    for (const auto& [name, t] : g.metadata()) {
        names[t.id] = name;
    }
    std::map<std::string, bytes> assignments;
    for (const auto& [id, m] : classic->members()) {
        const bytes* metadata = m->metadata(protocol);
        const int16_t version = metadata ? consumer_protocol_version(*metadata).value_or(0) : 0;
        assignments[id] = encode_consumer_assignment(g.target_of(id), names, version);
        m->set_assignment(assignments[id]);
    }
    for (const auto& [tp, om] : g.offsets().all()) {
        classic->offsets().put(tp, om);
    }

    std::vector<coordinator_record> records;
    for (const auto& [id, m] : g.members()) {
        for (auto& r : consumer_group_member_tombstones(group_id, id)) {
            records.push_back(std::move(r));
        }
    }
    for (auto& r : consumer_group_tombstones(group_id)) {
        records.push_back(std::move(r));
    }
    records.push_back(
        {encode_group_metadata_key(group_id), encode_group_metadata_value(*classic, assignments)});
    // The consumer group's timers go with it.
    g.drop_timers();
    g.mark_dead(now);
    // `g` lives on while the caller holds it; the partition now holds the
    // classic group.
    part->groups[group_id] = classic;
    (void)append(group_id, std::move(records));
    logging::groups().info(
        "event=group_converted group={} from=consumer to=classic members={} generation={} "
        "leaving={}",
        group_id, classic->size(), classic->generation_id(), leaving);
    _classic.adopt_downgraded_group(classic, rebalance);
    return classic;
}

}  // namespace samsa::coordinator
