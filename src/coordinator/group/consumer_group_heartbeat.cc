// ConsumerGroupHeartbeat in consumer_group_manager (KIP-848; Kafka's
// GroupMetadataManager.consumerGroupHeartbeat): the request's checks, joining
// and leaving, the member's epoch, the group epoch, the target assignment and
// one reconciliation step.
#include <re2/re2.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <utility>

#include "common/logging/loggers.h"
#include "coordinator/group/consumer_group_manager.h"
#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/current_assignment_builder.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

namespace {

constexpr int32_t leave_epoch = -1;
constexpr int32_t static_leave_epoch = -2;
// The shortest interval a member waiting for released partitions is given.
constexpr int32_t waiting_heartbeat_floor_ms = 50;

consumer_group_heartbeat_result failed(error_code ec, std::string message = {}) {
    consumer_group_heartbeat_result r;
    r.error = ec;
    if (!message.empty()) {
        r.error_message = std::move(message);
    }
    return r;
}

// Topics a regex never matches: the internal ones.
bool is_internal_topic(const std::string& name) {
    return name == "__consumer_offsets" || name == "__transaction_state" ||
           name == "__share_group_state" || name == "__cluster_metadata";
}

// Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid.
std::optional<consumer_group_heartbeat_result> invalid(const consumer_group_heartbeat_params& req,
                                                       const group_config& config) {
    auto bad = [](std::string m) { return failed(error_code::invalid_request, std::move(m)); };
    if (req.group_id.empty()) {
        return bad("GroupId can't be empty.");
    }
    if (req.instance_id && req.instance_id->empty()) {
        return bad("InstanceId can't be empty.");
    }
    if (req.rack_id && req.rack_id->empty()) {
        return bad("RackId can't be empty.");
    }
    if (req.member_epoch < static_leave_epoch) {
        return bad("MemberEpoch is invalid.");
    }
    if (req.member_epoch == 0) {
        if (req.rebalance_timeout_ms == -1) {
            return bad("RebalanceTimeoutMs must be provided in first request.");
        }
        if (!req.owned || !assignment_empty(*req.owned)) {
            return bad("TopicPartitions must be empty when (re-)joining.");
        }
        if (!req.subscribed_topic_names && !req.subscribed_topic_regex) {
            return bad(
                "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
        }
    } else if (req.member_id.empty()) {
        return bad("MemberId can't be empty.");
    }
    if (req.member_epoch == static_leave_epoch && !req.instance_id) {
        return bad("InstanceId can't be null.");
    }
    if (req.subscribed_topic_regex && !req.subscribed_topic_regex->empty()) {
        RE2 re(*req.subscribed_topic_regex, RE2::Quiet);
        if (!re.ok()) {
            return failed(error_code::invalid_regular_expression,
                          "SubscribedTopicRegex `" + *req.subscribed_topic_regex +
                              "` is not a valid regular expression: " + re.error() + ".");
        }
    }
    if (req.server_assignor &&
        std::find(config.consumer_assignors.begin(), config.consumer_assignors.end(),
                  *req.server_assignor) == config.consumer_assignors.end()) {
        std::string names;
        for (const auto& n : config.consumer_assignors) {
            names += (names.empty() ? "" : ", ") + n;
        }
        return failed(error_code::unsupported_assignor,
                      "ServerAssignor " + *req.server_assignor +
                          " is not supported. Supported assignors: " + names + ".");
    }
    return std::nullopt;
}

// The interval the member is told to heartbeat at. One waiting for
// partitions others still own (UNRELEASED_PARTITIONS) can only learn of their
// release from a heartbeat of its own: it asks again soon, so that it gets
// them within a fraction of an interval of their release rather than up to a
// whole one later. Every other member heartbeats at the configured interval.
// The interval is the response's to set, heartbeat by heartbeat (KIP-848).
int32_t heartbeat_interval_for(const consumer_group_member& m, int32_t interval) {
    if (m.state != member_state::unreleased_partitions) {
        return interval;
    }
    return std::min(interval, std::max(waiting_heartbeat_floor_ms, interval / 10));
}

// Every partition of a subscribed topic is in exactly one target, and no
// target names another.
bool targets_cover_subscriptions(const consumer_group& g) {
    std::set<std::pair<uuid, int32_t>> wanted;
    for (const auto& [name, t] : g.metadata()) {
        for (int32_t p = 0; p < t.partitions; ++p) {
            wanted.insert({t.id, p});
        }
    }
    size_t targeted = 0;
    for (const auto& [id, target] : g.target()) {
        for (const auto& [topic, parts] : target) {
            for (int32_t p : parts) {
                if (!wanted.count({topic, p})) {
                    return false;
                }
                ++targeted;
            }
        }
    }
    return targeted == wanted.size();
}

bool same_assignment(const consumer_group_member& a, const consumer_group_member& b) {
    return a.member_epoch == b.member_epoch && a.previous_member_epoch == b.previous_member_epoch &&
           a.state == b.state && a.assigned == b.assigned &&
           a.pending_revocation == b.pending_revocation;
}

}  // namespace

struct consumer_group_manager::heartbeat_context {
    const consumer_group_heartbeat_params& req;
    const request_origin& origin;
    consumer_group& g;
    std::vector<coordinator_record>& records;
    consumer_group_member member;
    // The member as the group had it before this heartbeat (nullopt: new).
    std::optional<consumer_group_member> before;
    bool bump = false;
};

consumer_group_heartbeat_result consumer_group_manager::heartbeat(
    const consumer_group_heartbeat_params& req, const request_origin& origin,
    const metadata::metadata_image& image) {
    if (auto bad = invalid(req, _config)) {
        return *bad;
    }
    if (auto status = _partitions.status(req.group_id); status != error_code::none) {
        return failed(status);
    }
    std::vector<coordinator_record> records;
    auto found = group_for_heartbeat(req.group_id, req.member_epoch == 0, image, records);
    if (!found) {
        return failed(found.err().code, found.err().message);
    }
    consumer_group& g = **found;
    // A change of the group's configs acts from its next heartbeat, as in Kafka.
    g.configs =
        config::resolve_group_config(image.group_overrides(req.group_id), default_configs());
    if (req.member_epoch == leave_epoch || req.member_epoch == static_leave_epoch) {
        auto out = leave(g, req);
        (void)append(req.group_id, std::move(records));
        return out;
    }

    heartbeat_context ctx{req, origin, g, records, {}, std::nullopt, false};
    if (auto ec = member_for_heartbeat(ctx); ec != error_code::none) {
        (void)append(req.group_id, std::move(records));
        std::string message;
        if (ec == error_code::group_max_size_reached) {
            message = "The consumer group has reached its maximum capacity of " +
                      std::to_string(_config.consumer_max_size) + " members.";
        }
        return failed(ec, message);
    }
    consumer_group_member& m = ctx.member;
    // What the heartbeat changes of the member's subscription and client.
    if (req.instance_id) {
        m.instance_id = req.instance_id;
    }
    if (req.rack_id) {
        m.rack_id = req.rack_id;
    }
    m.client_id = origin.client_id;
    m.client_host = origin.client_host;
    if (req.rebalance_timeout_ms != -1) {
        m.rebalance_timeout_ms = req.rebalance_timeout_ms;
    }
    if (req.subscribed_topic_names && *req.subscribed_topic_names != m.subscribed_topic_names) {
        m.subscribed_topic_names = *req.subscribed_topic_names;
        ctx.bump = true;
    }
    if (req.subscribed_topic_regex) {
        std::optional<std::string> regex;
        if (!req.subscribed_topic_regex->empty()) {
            regex = *req.subscribed_topic_regex;
        }
        if (regex != m.subscribed_topic_regex) {
            m.subscribed_topic_regex = regex;
            ctx.bump = true;
        }
    }
    if (req.server_assignor && req.server_assignor != m.server_assignor) {
        m.server_assignor = req.server_assignor;
        ctx.bump = true;
    }
    if (!ctx.before || !same_member_metadata(*ctx.before, m)) {
        records.push_back(consumer_group_member_record(g.group_id(), m));
    }
    const std::string member_id = m.member_id;
    g.update_member(m.clone());
    auto advanced = advance_member(g, member_id, ctx.bump, !ctx.before, req.owned, image, records);
    if (!advanced) {
        return failed(advanced.err().code);
    }
    const bool assignment_changed = *advanced;
    consumer_group_member* current = g.get(member_id);
    schedule_session(g, *current);
    schedule_rebalance_timeout(g, *current);
    if (auto ec = append(g.group_id(), std::move(records)); ec != error_code::none) {
        return failed(ec);
    }

    consumer_group_heartbeat_result out;
    out.member_id = member_id;
    out.member_epoch = current->member_epoch;
    out.heartbeat_interval_ms =
        heartbeat_interval_for(*current, configs_of(g).consumer_heartbeat_interval_ms);
    current->heartbeat_due_ms = _wall_clock() + out.heartbeat_interval_ms;
    // Kafka sends the assignment on a join, on a full request (after an
    // error the client sends every field) and when it changed.
    const bool full_request = req.rebalance_timeout_ms != -1 &&
                              (req.subscribed_topic_names || req.subscribed_topic_regex) &&
                              req.owned.has_value();
    if (req.member_epoch == 0 || full_request || assignment_changed) {
        out.assignment = current->assigned;
    }
    return out;
}

void consumer_group_manager::hand_over_target(consumer_group& g, const std::string& old_id,
                                              const std::string& new_id,
                                              const std::string& instance_id, const char* protocol,
                                              std::vector<coordinator_record>& out) {
    topic_assignment target = g.target_of(old_id);
    for (auto& r : consumer_group_member_tombstones(g.group_id(), old_id)) {
        out.push_back(std::move(r));
    }
    g.remove_member(old_id);
    g.set_target(new_id, target);
    out.push_back(consumer_group_target_member_record(g.group_id(), new_id, target));
    logging::groups().info(
        "event=static_member_replaced group={} instance={} old={} new={} protocol={}", g.group_id(),
        instance_id, old_id, new_id, protocol);
}

result<bool> consumer_group_manager::advance_member(consumer_group& g, const std::string& member_id,
                                                    bool bump, bool is_new,
                                                    const std::optional<topic_assignment>& owned,
                                                    const metadata::metadata_image& image,
                                                    std::vector<coordinator_record>& records) {
    if (bump) {
        g.refreshed_at_image = -1;
    }
    // What the subscriptions resolve to, and the group epoch.
    if (refresh_metadata(g, image)) {
        bump = true;
    }
    if (bump) {
        g.set_group_epoch(g.group_epoch() + 1);
        records.push_back(consumer_group_epoch_record(g.group_id(), g.group_epoch()));
        logging::groups().info("event=group_epoch_bumped group={} epoch={} member={}", g.group_id(),
                               g.group_epoch(), member_id);
    }
    if (g.group_epoch() > g.assignment_epoch()) {
        if (auto ec = compute_target(g, records); ec != error_code::none) {
            return error(ec);
        }
    }
    // One step toward the member's target.
    consumer_group_member* current = g.get(member_id);
    reconcile_input in;
    in.target_epoch = g.assignment_epoch();
    in.target = &g.target_of(member_id);
    in.owned = &owned;
    in.partition_epoch = [&g](const uuid& t, int32_t p) { return g.partition_epoch(t, p); };
    consumer_group_member next = reconcile(*current, in);
    const bool assignment_changed = next.assigned != current->assigned;
    if (!same_assignment(next, *current) || is_new) {
        records.push_back(consumer_group_current_assignment_record(g.group_id(), next));
        if (next.member_epoch != current->member_epoch || next.state != current->state) {
            logging::groups().debug(
                "event=member_reconciled group={} member={} epoch={} state={} assigned={} "
                "revoking={}",
                g.group_id(), member_id, next.member_epoch, member_state_name(next.state),
                assignment_size(next.assigned), assignment_size(next.pending_revocation));
        }
        g.update_member(std::move(next));
    }
    return assignment_changed;
}

error_code consumer_group_manager::member_for_heartbeat(heartbeat_context& ctx) {
    const auto& req = ctx.req;
    consumer_group& g = ctx.g;
    if (req.member_epoch != 0) {
        const consumer_group_member* m = g.get(req.member_id);
        if (!m) {
            return error_code::unknown_member_id;
        }
        if (req.member_epoch != m->member_epoch) {
            // A response lost on the way: the member still stands at its
            // previous epoch with what it had then.
            const bool lost_response = req.member_epoch == m->previous_member_epoch && req.owned &&
                                       assignment_empty(assignment_minus(*req.owned, m->assigned));
            if (!lost_response) {
                return error_code::fenced_member_epoch;
            }
        }
        ctx.before = m->clone();
        ctx.member = m->clone();
        return error_code::none;
    }
    // Joining (epoch 0).
    std::string member_id = req.member_id.empty() ? random_java_uuid_string() : req.member_id;
    if (req.instance_id) {
        if (auto holder = g.static_member_id(*req.instance_id); holder && *holder != member_id) {
            const consumer_group_member* old = g.get(*holder);
            if (old && !old->has_left_temporarily()) {
                return error_code::unreleased_instance_id;
            }
            // The instance returns under a new member id: it takes over the
            // old member's assignment, and nobody else's moves.
            consumer_group_member taken = old->clone();
            taken.member_id = member_id;
            taken.member_epoch = 0;
            taken.previous_member_epoch = -1;
            taken.state = member_state::stable;
            hand_over_target(g, *holder, member_id, *req.instance_id, "consumer", ctx.records);
            ctx.member = std::move(taken);
            return error_code::none;
        }
    }
    if (const consumer_group_member* m = g.get(member_id)) {
        // Rejoining under its id (after being fenced, or a lost response):
        // it starts again, having given up what it owned.
        ctx.before = m->clone();
        ctx.member = m->clone();
        ctx.member.member_epoch = 0;
        ctx.member.previous_member_epoch = -1;
        ctx.member.state = member_state::stable;
        ctx.member.assigned.clear();
        ctx.member.pending_revocation.clear();
        return error_code::none;
    }
    if (g.size() >= size_t(_config.consumer_max_size)) {
        return error_code::group_max_size_reached;
    }
    ctx.member.member_id = member_id;
    ctx.member.member_epoch = 0;
    ctx.member.previous_member_epoch = -1;
    ctx.bump = true;
    logging::groups().info("event=member_joined group={} member={} instance={} client={}",
                           g.group_id(), member_id, req.instance_id.value_or(""),
                           ctx.origin.client_id);
    return error_code::none;
}

consumer_group_heartbeat_result consumer_group_manager::leave(
    consumer_group& g, const consumer_group_heartbeat_params& req) {
    consumer_group_heartbeat_result out;
    out.member_id = req.member_id;
    out.member_epoch = req.member_epoch;
    out.heartbeat_interval_ms = 0;
    std::string member_id = req.member_id;
    if (req.instance_id) {
        if (auto holder = g.static_member_id(*req.instance_id)) {
            if (*holder != member_id) {
                return failed(error_code::fenced_instance_id,
                              "Static member " + *req.instance_id + " is fenced.");
            }
        }
    }
    consumer_group_member* m = g.get(member_id);
    if (!m) {
        return failed(error_code::unknown_member_id);
    }
    std::vector<coordinator_record> records;
    if (req.member_epoch == static_leave_epoch) {
        // It comes back as a new instance: its assignment waits for it for a
        // session timeout.
        consumer_group_member left = m->clone();
        left.previous_member_epoch = left.member_epoch;
        left.member_epoch = static_leave_epoch;
        records.push_back(consumer_group_current_assignment_record(g.group_id(), left));
        auto& kept = g.update_member(std::move(left));
        if (kept.rebalance_timer) {
            kept.rebalance_timer->cancel();
        }
        schedule_session(g, kept);
        logging::groups().info("event=member_left_temporarily group={} member={} instance={}",
                               g.group_id(), member_id, *req.instance_id);
    } else if (maybe_downgrade(g, member_id)) {
        logging::groups().info("event=member_left group={} member={} downgraded=true", g.group_id(),
                               member_id);
    } else {
        remove_member(g, member_id, records);
        logging::groups().info("event=member_left group={} member={} group_epoch={}", g.group_id(),
                               member_id, g.group_epoch());
    }
    if (auto ec = append(g.group_id(), std::move(records)); ec != error_code::none) {
        return failed(ec);
    }
    return out;
}

bool consumer_group_manager::refresh_metadata(consumer_group& g,
                                              const metadata::metadata_image& image) {
    if (g.refreshed_at_image == image.offset && image.offset >= 0) {
        return false;
    }
    g.refreshed_at_image = image.offset;
    std::map<std::string, std::set<std::string>> resolved;
    for (const auto& regex : g.subscribed_regexes()) {
        RE2 re(regex, RE2::Quiet);
        auto& topics = resolved[regex];
        if (!re.ok()) {
            continue;
        }
        for (const auto& [name, topic] : image.topics_by_name) {
            if (!is_internal_topic(name) && RE2::FullMatch(name, re)) {
                topics.insert(name);
            }
        }
    }
    subscription_metadata meta;
    auto add = [&](const std::string& name) {
        if (const auto* t = image.topic(name)) {
            meta[name] = subscribed_topic{t->id, int32_t(t->partitions.size())};
        }
    };
    for (const auto& name : g.subscribed_topic_names()) {
        add(name);
    }
    for (const auto& [regex, topics] : resolved) {
        for (const auto& name : topics) {
            add(name);
        }
    }
    g.resolved_regexes = std::move(resolved);
    if (meta == g.metadata()) {
        return false;
    }
    g.set_metadata(std::move(meta));
    if (!g.metadata_established) {
        // The first refresh after a load: what the subscriptions resolve to
        // changed only if the targets no longer cover exactly the subscribed
        // topics' partitions (a topic or partitions created or deleted while
        // the group was not served). Otherwise the group epoch stays, and
        // classic members are not sent to rejoin for nothing.
        g.metadata_established = true;
        return !targets_cover_subscriptions(g);
    }
    return true;
}

}  // namespace samsa::coordinator
