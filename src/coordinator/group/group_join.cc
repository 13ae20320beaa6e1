// The join phase of the classic rebalance protocol in group_metadata_manager:
// JoinGroup, entering PreparingRebalance, and completing the join into the
// next generation (Kafka's GroupCoordinator; seed inventory GRP-05..10,
// KIP-345 static membership, KIP-394 member ids required before joining,
// KIP-814 skipped assignment, KIP-134 initial rebalance delay).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/logging/loggers.h"
#include "coordinator/group/delayed_join.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

namespace {

std::set<std::string> protocol_names_of(const join_group_params& req) {
    std::set<std::string> out;
    for (const auto& p : req.protocols) {
        out.insert(p.name);
    }
    return out;
}

// Our reason for a rebalance, and the client's own (JoinGroup v8+, KIP-800).
std::string rebalance_reason(std::string ours, const join_group_params& req) {
    if (req.reason && !req.reason->empty()) {
        ours += " (client: " + *req.reason + ")";
    }
    return ours;
}

// KIP-394: JoinGroup v4+ clients expect MEMBER_ID_REQUIRED on a first join.
bool requires_known_member_id(const request_origin& origin) {
    return origin.api_version >= 4;
}

// KIP-814: JoinGroup v9+ leaders understand skip_assignment.
bool supports_skip_assignment(const request_origin& origin) {
    return origin.api_version >= 9;
}

}  // namespace

std::string group_metadata_manager::new_member_id(
    const std::string& client_id, const std::optional<std::string>& group_instance_id) {
    return group_instance_id.value_or(client_id) + "-" + random_java_uuid_string();
}

// ---- JoinGroup ----------------------------------------------------------------

void group_metadata_manager::join_group(const join_group_params& req, const request_origin& origin,
                                        join_callback cb) {
    if (req.group_id.empty()) {
        cb(join_error(req.member_id, error_code::invalid_group_id));
        return;
    }
    if (auto status = _partitions.status(req.group_id); status != error_code::none) {
        cb(join_error(req.member_id, status));
        return;
    }
    if (req.session_timeout_ms < _config.min_session_timeout_ms ||
        req.session_timeout_ms > _config.max_session_timeout_ms) {
        cb(join_error(req.member_id, error_code::invalid_session_timeout));
        return;
    }
    if (auto any = find_any_group(req.group_id);
        any && any->type() != group_type::classic && !any->is_empty() && !any->is_dead()) {
        // group_manager gives a consumer group with members its classic
        // members' JoinGroup (KIP-848's online migration); this manager,
        // asked directly, has no such group to join.
        cb(join_error(req.member_id, error_code::group_id_not_found));
        return;
    }
    const bool unknown_member = req.member_id.empty();
    // Only a first join creates a group: a member id names a group that exists.
    group_ptr group = unknown_member ? get_or_create_group(req.group_id) : find_group(req.group_id);
    if (!group) {
        cb(join_error(req.member_id, error_code::unknown_member_id));
        return;
    }
    // group.max.size counts members that are (re)joining.
    const group_member* known = unknown_member ? nullptr : group->get(req.member_id);
    bool accept = true;
    switch (group->state()) {
        case group_state::empty:
        case group_state::dead:
            break;
        case group_state::preparing_rebalance:
            accept = (known && known->is_awaiting_join()) ||
                     group->num_awaiting_join() < size_t(_config.max_size);
            break;
        case group_state::completing_rebalance:
        case group_state::stable:
            accept = known || group->size() < size_t(_config.max_size);
            break;
    }
    if (!accept) {
        if (known) {
            remove_member_and_update_group(group, req.member_id, "group is full");
        }
        cb(join_error("", error_code::group_max_size_reached));
        return;
    }
    if (unknown_member) {
        join_unknown_member(group, req, origin, std::move(cb));
    } else {
        join_known_member(group, req, origin, std::move(cb));
    }
    // Every join may be the last one the join phase waits for.
    if (group->is(group_state::preparing_rebalance)) {
        _joins.check_and_complete(group->group_id());
    }
}

void group_metadata_manager::join_unknown_member(const group_ptr& group,
                                                 const join_group_params& req,
                                                 const request_origin& origin, join_callback cb) {
    if (group->is(group_state::dead)) {
        cb(join_error("", error_code::coordinator_not_available));
        return;
    }
    if (!group->supports_protocols(req.protocol_type, protocol_names_of(req))) {
        cb(join_error("", error_code::inconsistent_group_protocol));
        return;
    }
    const std::string member_id = new_member_id(origin.client_id, req.group_instance_id);
    if (req.group_instance_id) {
        join_static_member(group, req, origin, member_id, std::move(cb));
    } else if (requires_known_member_id(origin)) {
        // KIP-394: hand out the id and expect the member back with it, so a
        // client that retries a lost response does not join twice.
        group->add_pending_member(member_id);
        schedule_pending_member_expiration(group, member_id, req.session_timeout_ms);
        cb(join_error(member_id, error_code::member_id_required));
    } else {
        add_member_and_rebalance(group, req, origin, member_id, std::move(cb));
    }
}

void group_metadata_manager::join_known_member(const group_ptr& group, const join_group_params& req,
                                               const request_origin& origin, join_callback cb) {
    const std::string& member_id = req.member_id;
    if (group->is(group_state::dead)) {
        cb(join_error(member_id, error_code::coordinator_not_available));
        return;
    }
    if (!group->supports_protocols(req.protocol_type, protocol_names_of(req))) {
        cb(join_error(member_id, error_code::inconsistent_group_protocol));
        return;
    }
    if (group->is_pending_member(member_id)) {
        if (req.group_instance_id) {
            // Static members never get a pending id.
            cb(join_error(member_id, error_code::unknown_member_id));
            return;
        }
        add_member_and_rebalance(group, req, origin, member_id, std::move(cb));
        return;
    }
    const bool instance_unknown =
        req.group_instance_id && !group->static_member_id(*req.group_instance_id);
    if (group->is_static_member_fenced(req.group_instance_id, member_id)) {
        cb(join_error(member_id, error_code::fenced_instance_id));
        return;
    }
    if (!group->has(member_id) || instance_unknown) {
        cb(join_error(member_id, error_code::unknown_member_id));
        return;
    }
    group_member& member = *group->get(member_id);
    const auto protocols = req.protocols;
    switch (group->state()) {
        case group_state::preparing_rebalance:
            update_member_and_rebalance(group, member, req, std::move(cb));
            return;
        case group_state::completing_rebalance:
            if (member.matches(protocols)) {
                // A retry of a join that already completed: the same answer.
                cb(group->join_response(member_id));
            } else {
                update_member_and_rebalance(group, member, req, std::move(cb));
            }
            return;
        case group_state::stable:
            // The leader rejoins to reassign (e.g. partitions were added);
            // anyone with new protocols or metadata changes the group.
            if (group->is_leader(member_id) || !member.matches(protocols)) {
                update_member_and_rebalance(group, member, req, std::move(cb));
            } else {
                cb(group->join_response(member_id));
            }
            return;
        case group_state::empty:
        case group_state::dead:
            cb(join_error(member_id, error_code::unknown_member_id));
            return;
    }
}

void group_metadata_manager::join_static_member(const group_ptr& group,
                                                const join_group_params& req,
                                                const request_origin& origin,
                                                const std::string& new_member_id,
                                                join_callback cb) {
    const std::string& instance = *req.group_instance_id;
    const auto existing = group->static_member_id(instance);
    if (!existing) {
        add_member_and_rebalance(group, req, origin, new_member_id, std::move(cb));
        return;
    }
    const std::string old_member_id = *existing;
    switch (group->state()) {
        case group_state::completing_rebalance:
        case group_state::stable: {
            // KIP-345: a restarted static member takes its place back; the
            // old id is fenced.
            const auto previous_leader = group->leader_id();
            group_member* member =
                group->replace_static_member(instance, old_member_id, new_member_id);
            const auto old_protocols = member->protocols();
            const int32_t old_rebalance_timeout = member->rebalance_timeout_ms();
            const int32_t old_session_timeout = member->session_timeout_ms();
            member->update(req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms);
            complete_and_schedule_next_heartbeat(group, *member, member->session_timeout_ms());
            if (group->is(group_state::completing_rebalance)) {
                // The leader may have assigned to the old id: rebalance again.
                member->await_join(std::move(cb));
                prepare_rebalance(group, "static member " + instance +
                                             " rejoined while the "
                                             "group was completing a rebalance");
                return;
            }
            if (group->protocol_name() != group->select_protocol()) {
                member->await_join(std::move(cb));
                maybe_prepare_rebalance(
                    group, "static member " + instance + " rejoined with other protocols");
                return;
            }
            // Same protocol: no rebalance; record the new member id.
            if (auto err = store_group(*group, {}); err != error_code::none) {
                group->replace_static_member(instance, new_member_id, old_member_id);
                member->update(old_protocols, old_rebalance_timeout, old_session_timeout);
                cb(join_error("", err));
                return;
            }
            auto resp = group->join_response(new_member_id);
            if (supports_skip_assignment(origin) && group->is_leader(new_member_id)) {
                // KIP-814: the leader learns it leads but must not reassign.
                resp.skip_assignment = true;
            } else {
                // Older clients: name the previous leader id, so a returning
                // leader does not think it leads and reassign in a Stable group.
                resp.members.clear();
                resp.leader = previous_leader.value_or("");
            }
            logging::groups().info(
                "event=group_static_member_replaced group={} instance={} member={}",
                group->group_id(), instance, new_member_id);
            cb(std::move(resp));
            return;
        }
        case group_state::preparing_rebalance: {
            group_member* member =
                group->replace_static_member(instance, old_member_id, new_member_id);
            update_member_and_rebalance(group, *member, req, std::move(cb));
            return;
        }
        case group_state::empty:
        case group_state::dead:
            // A group with a static member has members.
            cb(join_error(new_member_id, error_code::unknown_member_id));
            return;
    }
}

void group_metadata_manager::add_member_and_rebalance(const group_ptr& group,
                                                      const join_group_params& req,
                                                      const request_origin& origin,
                                                      const std::string& member_id,
                                                      join_callback cb) {
    auto member = std::make_unique<group_member>(
        member_id, req.group_instance_id, origin.client_id, origin.client_host,
        req.rebalance_timeout_ms, req.session_timeout_ms, req.protocol_type, req.protocols);
    member->is_new = true;
    // A first generation still gathering members waits a little longer.
    if (group->is(group_state::preparing_rebalance) && group->generation_id() == 0) {
        group->new_member_added = true;
    }
    group_member& m = *member;
    group->add(std::move(member), std::move(cb));
    // KIP-394: a new member gets a generous deadline to receive its join
    // response; its session starts with the next generation.
    complete_and_schedule_next_heartbeat(group, m, new_member_join_timeout_ms);
    maybe_prepare_rebalance(group, rebalance_reason("adding new member " + member_id, req));
}

void group_metadata_manager::update_member_and_rebalance(const group_ptr& group,
                                                         group_member& member,
                                                         const join_group_params& req,
                                                         join_callback cb) {
    member.update(req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms);
    // A client sends one JoinGroup at a time; a second one replaces the first,
    // which must still get an answer.
    member.complete_join(join_error(member.member_id(), error_code::rebalance_in_progress));
    member.await_join(std::move(cb));
    maybe_prepare_rebalance(
        group, rebalance_reason("updating metadata of member " + member.member_id(), req));
}

void group_metadata_manager::maybe_prepare_rebalance(const group_ptr& group,
                                                     const std::string& reason) {
    if (group->can_rebalance()) {
        prepare_rebalance(group, reason);
    }
}

void group_metadata_manager::prepare_rebalance(const group_ptr& group, const std::string& reason) {
    if (group->is(group_state::completing_rebalance)) {
        // Members waiting for the leader's assignment must rejoin instead.
        reset_and_propagate_assignment_error(*group, error_code::rebalance_in_progress);
    }
    // The sync deadline of the previous generation no longer applies.
    group->clear_pending_sync_members();
    const bool initial = group->is(group_state::empty);
    group->transition_to(group_state::preparing_rebalance, _wall_clock());
    _syncs.check_and_complete(group->group_id());
    std::shared_ptr<delayed_join> op;
    if (initial) {
        const int32_t delay = _config.initial_rebalance_delay_ms;
        op = std::make_shared<initial_delayed_join>(
            *this, group, delay, delay,
            std::max<int64_t>(int64_t(group->rebalance_timeout_ms()) - delay, 0));
    } else {
        op = std::make_shared<delayed_join>(*this, group, group->rebalance_timeout_ms());
    }
    logging::groups().info(
        "event=group_preparing_rebalance group={} generation={} members={} reason=\"{}\"",
        group->group_id(), group->generation_id(), group->size(), reason);
    _joins.try_complete_else_watch(op, {group->group_id()});
}

void group_metadata_manager::schedule_initial_join(const std::shared_ptr<classic_group>& group,
                                                   int64_t delay_ms, int64_t remaining_ms) {
    auto op = std::make_shared<initial_delayed_join>(
        *this, group, _config.initial_rebalance_delay_ms, delay_ms, remaining_ms);
    _joins.try_complete_else_watch(op, {group->group_id()});
}

void group_metadata_manager::on_complete_join(const std::shared_ptr<classic_group>& group) {
    if (group->is(group_state::dead)) {
        return;
    }
    // Dynamic members that did not rejoin in time are gone; static members
    // keep their place (KIP-345) until their session expires.
    for (const auto& id : group->not_yet_rejoined_members()) {
        const group_member* m = group->get(id);
        if (m && !m->is_static_member()) {
            group->remove(id);
            remove_heartbeat(group->group_id(), id);
        }
    }
    if (!group->maybe_elect_new_joined_leader() && !group->empty()) {
        // Only static members that have not rejoined are left: wait again
        // rather than start a generation nobody takes part in.
        logging::groups().info("event=group_join_postponed group={} reason=\"no member rejoined\"",
                               group->group_id());
        auto op = std::make_shared<delayed_join>(*this, group, group->rebalance_timeout_ms());
        _joins.try_complete_else_watch(op, {group->group_id()});
        return;
    }
    group->init_next_generation(_wall_clock());
    if (group->is(group_state::empty)) {
        // Recorded so that a reload knows the group emptied (and since when:
        // offsets retention counts from here).
        if (auto err = store_group(*group, {}); err != error_code::none) {
            logging::groups().warn("event=group_store_failed group={} generation={} error={}",
                                   group->group_id(), group->generation_id(), error_name(err));
        }
        logging::groups().info("event=group_empty group={} generation={}", group->group_id(),
                               group->generation_id());
        return;
    }
    logging::groups().info(
        "event=group_join_completed group={} generation={} protocol={} members={} "
        "leader={}",
        group->group_id(), group->generation_id(), group->protocol_name().value_or(""),
        group->size(), group->leader_id().value_or(""));
    std::vector<std::string> ids;
    for (const auto& [id, m] : group->members()) {
        ids.push_back(id);
    }
    for (const auto& id : ids) {
        group_member* m = group->get(id);
        if (!m) {
            continue;
        }
        m->complete_join(group->join_response(id));
        complete_and_schedule_next_heartbeat(group, *m, m->session_timeout_ms());
        m->is_new = false;
    }
    group->set_all_members_pending_sync();
    schedule_pending_sync(group);
}

}  // namespace samsa::coordinator
