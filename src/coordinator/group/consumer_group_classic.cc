// The classic protocol in a consumer group (KIP-848's online migration;
// Kafka's GroupMetadataManager.classicGroup*ToConsumerGroup): a member that
// speaks JoinGroup, SyncGroup, Heartbeat and LeaveGroup is a member of the
// consumer group like any other, its subscription taken from its JoinGroup
// metadata. Nothing waits for the rest of the group: its JoinGroup moves it
// one reconciliation step toward its target and answers with its member
// epoch as the generation; its SyncGroup answers with what it owns at that
// epoch; its Heartbeat answers REBALANCE_IN_PROGRESS when it has to rejoin
// to take the next step (the group moved on, it has partitions to give up,
// or partitions it waited for are free). docs/group-migration.md.
#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "coordinator/group/consumer_group_manager.h"
#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/consumer_protocol.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

namespace {

// KIP-394: JoinGroup v4+ from a dynamic member without an id gets one and
// must come back with it.
bool requires_known_member_id(const join_group_params& req, const request_origin& origin) {
    return req.member_id.empty() && !req.group_instance_id && origin.api_version >= 4;
}

// Kafka's validateConsumerGroupMember: the member the request names, by
// instance id for a static member (whose member id must match).
result<consumer_group_member*> named_member(consumer_group& g, const std::string& member_id,
                                            const std::optional<std::string>& instance_id) {
    if (!instance_id) {
        consumer_group_member* m = g.get(member_id);
        if (!m) {
            return error(error_code::unknown_member_id);
        }
        return m;
    }
    auto holder = g.static_member_id(*instance_id);
    consumer_group_member* m = holder ? g.get(*holder) : nullptr;
    if (!m) {
        return error(error_code::unknown_member_id);
    }
    if (m->member_id != member_id) {
        return error(error_code::fenced_instance_id);
    }
    return m;
}

// The first protocol the member supports names its protocol in the
// responses (Kafka's).
const member_protocol& first_protocol(const consumer_group_member& m) {
    static const member_protocol none;
    return m.classic && !m.classic->supported_protocols.empty()
               ? m.classic->supported_protocols.front()
               : none;
}

std::map<uuid, std::string> topic_names(const consumer_group& g) {
    std::map<uuid, std::string> out;
    for (const auto& [name, t] : g.metadata()) {
        out[t.id] = name;
    }
    return out;
}

}  // namespace

void consumer_group_manager::classic_join(consumer_group& g, const join_group_params& req,
                                          const request_origin& origin,
                                          const metadata::metadata_image& image, join_callback cb) {
    const bool unknown_member = req.member_id.empty();
    const std::string member_id = unknown_member ? random_java_uuid_string() : req.member_id;
    if (!g.get(member_id) && g.size() >= size_t(_config.consumer_max_size)) {
        cb(join_error(member_id, error_code::group_max_size_reached));
        return;
    }
    if (!g.supports_classic_protocols(req.protocol_type, req.protocols)) {
        cb(join_error(member_id, error_code::inconsistent_group_protocol));
        return;
    }
    if (requires_known_member_id(req, origin)) {
        cb(join_error(member_id, error_code::member_id_required));
        return;
    }
    auto subscription = decode_consumer_subscription(req.protocols.front().metadata);
    if (!subscription) {
        cb(join_error(member_id, error_code::inconsistent_group_protocol));
        return;
    }
    std::vector<coordinator_record> records;
    // The member as it stands: new, known, or a static member's new
    // instance taking over its place.
    consumer_group_member m;
    std::optional<consumer_group_member> before;
    bool bump = false;
    bool downgrade_after = false;
    if (!req.group_instance_id) {
        if (const consumer_group_member* known = g.get(member_id)) {
            before = known->clone();
            m = known->clone();
        }
    } else {
        auto holder = g.static_member_id(*req.group_instance_id);
        const consumer_group_member* old = holder ? g.get(*holder) : nullptr;
        if (!unknown_member) {
            if (!old) {
                cb(join_error(member_id, error_code::unknown_member_id));
                return;
            }
            if (old->member_id != member_id) {
                cb(join_error(member_id, error_code::fenced_instance_id));
                return;
            }
            before = old->clone();
            m = old->clone();
        } else if (old) {
            // The instance returns under a new id: it takes over the old
            // member's target, and nobody else's moves. If the old one was
            // the last member of the consumer protocol, the group becomes
            // classic at once, without a rebalance (Kafka's
            // validateOnlineDowngradeWithReplacedMemberId).
            downgrade_after =
                !old->uses_classic_protocol() && may_downgrade(g, old->member_id, g.size());
            m = old->clone();
            m.member_id = member_id;
            m.member_epoch = 0;
            m.previous_member_epoch = 0;
            m.state = member_state::stable;
            m.assigned.clear();
            m.pending_revocation.clear();
            const std::string old_id = old->member_id;
            hand_over_target(g, old_id, member_id, *req.group_instance_id, "classic", records);
        }
    }
    if (!before && m.member_id.empty()) {
        m.member_id = member_id;
        m.member_epoch = 0;
        m.previous_member_epoch = -1;
        bump = true;
        logging::groups().info(
            "event=member_joined group={} member={} instance={} client={} protocol=classic",
            g.group_id(), member_id, req.group_instance_id.value_or(""), origin.client_id);
    }
    m.instance_id = req.group_instance_id;
    if (subscription->rack_id && !subscription->rack_id->empty()) {
        m.rack_id = subscription->rack_id;
    }
    m.rebalance_timeout_ms = req.rebalance_timeout_ms;
    m.client_id = origin.client_id;
    m.client_host = origin.client_host;
    if (subscription->topics != m.subscribed_topic_names) {
        m.subscribed_topic_names = subscription->topics;
        bump = true;
    }
    m.classic = classic_member_metadata{req.session_timeout_ms, req.protocols};
    if (!before || !same_member_metadata(*before, m)) {
        records.push_back(consumer_group_member_record(g.group_id(), m));
    }
    g.update_member(m.clone());
    // What it owns, as its subscription says (v1+; an eager member has
    // given up everything before rejoining).
    const std::optional<topic_assignment> owned =
        to_topic_assignment(subscription->owned_partitions, [&image](const std::string& name) {
            const auto* t = image.topic(name);
            return t ? std::optional<uuid>(t->id) : std::nullopt;
        });
    auto advanced = advance_member(g, member_id, bump, !before, owned, image, records);
    if (!advanced) {
        cb(join_error(member_id, advanced.err().code));
        return;
    }
    if (auto ec = append(g.group_id(), std::move(records)); ec != error_code::none) {
        cb(join_error(member_id, ec));
        return;
    }
    consumer_group_member& current = *g.get(member_id);
    if (current.join_timer) {
        current.join_timer->cancel();
    }
    schedule_session(g, current);
    schedule_sync_timeout(g, current);

    join_group_result out;
    out.member_id = member_id;
    out.generation_id = current.member_epoch;
    out.protocol_type = std::string(consumer_protocol_type);
    out.protocol_name = first_protocol(current).name;
    if (downgrade_after) {
        if (auto classic = downgrade(g, "", false)) {
            out.generation_id = classic->generation_id();
            out.protocol_name = classic->protocol_name();
        }
    }
    // No leader: the coordinator assigns, every classic member syncs empty.
    cb(std::move(out));
}

void consumer_group_manager::classic_sync(consumer_group& g, const sync_group_params& req,
                                          sync_callback cb) {
    auto found = named_member(g, req.member_id, req.group_instance_id);
    if (!found) {
        cb(sync_error(found.err().code));
        return;
    }
    consumer_group_member& m = **found;
    if (!m.uses_classic_protocol()) {
        cb(sync_error(error_code::unknown_member_id));
        return;
    }
    if (req.generation_id != m.member_epoch) {
        cb(sync_error(error_code::illegal_generation));
        return;
    }
    if ((req.protocol_type && *req.protocol_type != consumer_protocol_type) ||
        (req.protocol_name && *req.protocol_name != first_protocol(m).name)) {
        cb(sync_error(error_code::inconsistent_group_protocol));
        return;
    }
    // The group moved on since it joined: it rejoins to catch up, unless it
    // has partitions to give up first (it rejoins once it did).
    if (g.group_epoch() > m.member_epoch && m.state != member_state::unrevoked_partitions) {
        schedule_join_timeout(g, m);
        cb(sync_error(error_code::rebalance_in_progress));
        return;
    }
    if (m.sync_timer) {
        m.sync_timer->cancel();
    }
    schedule_session(g, m);
    sync_group_result out;
    out.protocol_type = req.protocol_type;
    out.protocol_name = req.protocol_name;
    out.assignment = encode_consumer_assignment(
        m.assigned, topic_names(g),
        consumer_protocol_version(first_protocol(m).metadata).value_or(0));
    cb(std::move(out));
}

error_code consumer_group_manager::classic_heartbeat(consumer_group& g,
                                                     const heartbeat_params& req) {
    auto found = named_member(g, req.member_id, req.group_instance_id);
    if (!found) {
        return found.err().code;
    }
    consumer_group_member& m = **found;
    if (!m.uses_classic_protocol()) {
        return error_code::unknown_member_id;
    }
    if (req.generation_id != m.member_epoch) {
        return error_code::illegal_generation;
    }
    schedule_session(g, m);
    // It rejoins when the group moved on, when it has partitions to give
    // up, or when the partitions it waits for are free.
    if (m.member_epoch < g.group_epoch() || m.state == member_state::unrevoked_partitions ||
        (m.state == member_state::unreleased_partitions && !g.waiting_on_unreleased_partition(m))) {
        schedule_join_timeout(g, m);
        return error_code::rebalance_in_progress;
    }
    return error_code::none;
}

leave_group_result consumer_group_manager::classic_leave(
    consumer_group& g, const std::vector<leaving_member>& members) {
    leave_group_result out;
    std::vector<coordinator_record> records;
    for (const auto& lm : members) {
        auto& r = out.members.emplace_back();
        r.member_id = lm.member_id;
        r.group_instance_id = lm.group_instance_id;
        consumer_group_member* m = nullptr;
        if (!lm.group_instance_id) {
            m = g.get(lm.member_id);
        } else if (auto holder = g.static_member_id(*lm.group_instance_id)) {
            m = g.get(*holder);
            // An admin may remove a static member by its instance id alone.
            if (m && !lm.member_id.empty() && m->member_id != lm.member_id) {
                r.error = error_code::fenced_instance_id;
                continue;
            }
        }
        if (!m || !m->uses_classic_protocol()) {
            r.error = error_code::unknown_member_id;
            continue;
        }
        r.member_id = m->member_id;
        logging::groups().info(
            "event=member_left group={} member={} protocol=classic reason=\"{}\"", g.group_id(),
            r.member_id, lm.reason.value_or("not provided"));
        remove_member(g, r.member_id, records);
    }
    if (auto ec = append(g.group_id(), std::move(records)); ec != error_code::none) {
        out.error = ec;
    }
    return out;
}

}  // namespace samsa::coordinator
