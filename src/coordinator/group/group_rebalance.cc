// The classic rebalance protocol of group_manager: JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup, and the timeouts that drive a group between
// them (Kafka's GroupCoordinator; seed inventory GRP-05..14, KIP-345 static
// membership, KIP-394 member ids required before joining, KIP-814 skipped
// assignment).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "coordinator/group/delayed_heartbeat.h"
#include "coordinator/group/delayed_join.h"
#include "coordinator/group/delayed_sync.h"
#include "coordinator/group/group_manager.h"

namespace samsa::coordinator {

namespace {

std::vector<member_protocol> protocols_of(const protocol::join_group_request& req) {
    std::vector<member_protocol> out;
    out.reserve(req.protocols.size());
    for (const auto& p : req.protocols) {
        out.push_back({p.name, p.metadata});
    }
    return out;
}

std::set<std::string> protocol_names_of(const protocol::join_group_request& req) {
    std::set<std::string> out;
    for (const auto& p : req.protocols) {
        out.insert(p.name);
    }
    return out;
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

std::string group_manager::new_member_id(const std::string& client_id,
                                         const std::optional<std::string>& group_instance_id) {
    return group_instance_id.value_or(client_id) + "-" + random_java_uuid_string();
}

// ---- JoinGroup ----------------------------------------------------------------

void group_manager::join_group(const protocol::join_group_request& req,
                               const request_origin& origin, join_callback cb) {
    if (req.group_id.empty()) {
        cb(join_error(req.member_id, error_code::invalid_group_id));
        return;
    }
    if (auto status = coordinator_status(req.group_id); status != error_code::none) {
        cb(join_error(req.member_id, status));
        return;
    }
    if (req.session_timeout_ms < _config.min_session_timeout_ms ||
        req.session_timeout_ms > _config.max_session_timeout_ms) {
        cb(join_error(req.member_id, error_code::invalid_session_timeout));
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

void group_manager::join_unknown_member(const group_ptr& group,
                                        const protocol::join_group_request& req,
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

void group_manager::join_known_member(const group_ptr& group,
                                      const protocol::join_group_request& req,
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
    const auto protocols = protocols_of(req);
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

void group_manager::join_static_member(const group_ptr& group,
                                       const protocol::join_group_request& req,
                                       const request_origin& origin,
                                       const std::string& new_member_id, join_callback cb) {
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
            member->update(protocols_of(req), req.rebalance_timeout_ms, req.session_timeout_ms);
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
            spdlog::info("event=group_static_member_replaced group={} instance={} member={}",
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

void group_manager::add_member_and_rebalance(const group_ptr& group,
                                             const protocol::join_group_request& req,
                                             const request_origin& origin,
                                             const std::string& member_id, join_callback cb) {
    auto member = std::make_unique<group_member>(
        member_id, req.group_instance_id, origin.client_id, origin.client_host,
        req.rebalance_timeout_ms, req.session_timeout_ms, req.protocol_type, protocols_of(req));
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
    maybe_prepare_rebalance(group, "adding new member " + member_id);
}

void group_manager::update_member_and_rebalance(const group_ptr& group, group_member& member,
                                                const protocol::join_group_request& req,
                                                join_callback cb) {
    member.update(protocols_of(req), req.rebalance_timeout_ms, req.session_timeout_ms);
    // A client sends one JoinGroup at a time; a second one replaces the first,
    // which must still get an answer.
    member.complete_join(join_error(member.member_id(), error_code::rebalance_in_progress));
    member.await_join(std::move(cb));
    maybe_prepare_rebalance(group, "updating metadata of member " + member.member_id());
}

void group_manager::maybe_prepare_rebalance(const group_ptr& group, const std::string& reason) {
    if (group->can_rebalance()) {
        prepare_rebalance(group, reason);
    }
}

void group_manager::prepare_rebalance(const group_ptr& group, const std::string& reason) {
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
    spdlog::info("event=group_preparing_rebalance group={} generation={} members={} reason=\"{}\"",
                 group->group_id(), group->generation_id(), group->size(), reason);
    _joins.try_complete_else_watch(op, {group->group_id()});
}

void group_manager::schedule_initial_join(const std::shared_ptr<classic_group>& group,
                                          int64_t delay_ms, int64_t remaining_ms) {
    auto op = std::make_shared<initial_delayed_join>(
        *this, group, _config.initial_rebalance_delay_ms, delay_ms, remaining_ms);
    _joins.try_complete_else_watch(op, {group->group_id()});
}

void group_manager::on_complete_join(const std::shared_ptr<classic_group>& group) {
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
        spdlog::info("event=group_join_postponed group={} reason=\"no member rejoined\"",
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
            spdlog::warn("event=group_store_failed group={} generation={} error={}",
                         group->group_id(), group->generation_id(), error_name(err));
        }
        spdlog::info("event=group_empty group={} generation={}", group->group_id(),
                     group->generation_id());
        return;
    }
    spdlog::info(
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

// ---- SyncGroup ------------------------------------------------------------------

void group_manager::sync_group(const protocol::sync_group_request& req,
                               const request_origin& origin, sync_callback cb) {
    if (req.group_id.empty()) {
        cb(sync_error(error_code::invalid_group_id));
        return;
    }
    if (auto status = coordinator_status(req.group_id); status != error_code::none) {
        cb(sync_error(status));
        return;
    }
    group_ptr group = find_group(req.group_id);
    if (!group) {
        cb(sync_error(error_code::unknown_member_id));
        return;
    }
    if (group->is(group_state::dead)) {
        cb(sync_error(error_code::coordinator_not_available));
        return;
    }
    if (group->is_static_member_fenced(req.group_instance_id, req.member_id)) {
        cb(sync_error(error_code::fenced_instance_id));
        return;
    }
    if (!group->has(req.member_id)) {
        cb(sync_error(error_code::unknown_member_id));
        return;
    }
    if (req.generation_id != group->generation_id()) {
        cb(sync_error(error_code::illegal_generation));
        return;
    }
    if ((req.protocol_type && group->protocol_type() != req.protocol_type) ||
        (req.protocol_name && group->protocol_name() != req.protocol_name)) {
        cb(sync_error(error_code::inconsistent_group_protocol));
        return;
    }
    group_member& member = *group->get(req.member_id);
    switch (group->state()) {
        case group_state::empty:
        case group_state::dead:
            cb(sync_error(error_code::unknown_member_id));
            return;
        case group_state::preparing_rebalance:
            cb(sync_error(error_code::rebalance_in_progress));
            return;
        case group_state::completing_rebalance: {
            member.complete_sync(sync_error(error_code::rebalance_in_progress));
            member.await_sync(std::move(cb));
            group->remove_pending_sync_member(req.member_id);
            complete_pending_sync(group->group_id());
            if (!group->is_leader(req.member_id)) {
                return;  // answered when the leader's assignment is stored
            }
            std::map<std::string, bytes> assignments;
            for (const auto& a : req.assignments) {
                if (group->has(a.member_id)) {
                    assignments[a.member_id] = a.assignment;
                }
            }
            for (const auto& [id, m] : group->members()) {
                assignments.try_emplace(id);  // members the leader left out get nothing
            }
            // The assignment is durable before any member learns it (GRP-11).
            if (auto err = store_group(*group, assignments); err != error_code::none) {
                spdlog::warn("event=group_store_failed group={} generation={} error={}",
                             group->group_id(), group->generation_id(), error_name(err));
                reset_and_propagate_assignment_error(*group, err);
                maybe_prepare_rebalance(group, "error storing the group assignment");
                return;
            }
            propagate_assignment(*group, assignments);
            group->transition_to(group_state::stable, _wall_clock());
            spdlog::info("event=group_stable group={} generation={} members={}", group->group_id(),
                         group->generation_id(), group->size());
            return;
        }
        case group_state::stable: {
            group->remove_pending_sync_member(req.member_id);
            complete_pending_sync(group->group_id());
            protocol::sync_group_response resp;
            resp.protocol_type = group->protocol_type();
            resp.protocol_name = group->protocol_name();
            resp.assignment = member.assignment();
            cb(std::move(resp));
            complete_and_schedule_next_heartbeat(group, member, member.session_timeout_ms());
            return;
        }
    }
}

void group_manager::reset_and_propagate_assignment_error(classic_group& group, error_code ec) {
    for (const auto& [id, m] : group.members()) {
        m->set_assignment({});
        m->complete_sync(sync_error(ec));
    }
}

void group_manager::propagate_assignment(classic_group& group,
                                         const std::map<std::string, bytes>& assignments) {
    std::shared_ptr<classic_group> shared;
    if (auto* part = serving_partition(group.group_id())) {
        auto it = part->groups.find(group.group_id());
        if (it != part->groups.end()) {
            shared = it->second;
        }
    }
    for (const auto& [id, m] : group.members()) {
        auto a = assignments.find(id);
        m->set_assignment(a == assignments.end() ? bytes{} : a->second);
        protocol::sync_group_response resp;
        resp.protocol_type = group.protocol_type();
        resp.protocol_name = group.protocol_name();
        resp.assignment = m->assignment();
        if (m->complete_sync(std::move(resp)) && shared) {
            complete_and_schedule_next_heartbeat(shared, *m, m->session_timeout_ms());
        }
    }
}

void group_manager::schedule_pending_sync(const group_ptr& group) {
    auto op = std::make_shared<delayed_sync>(*this, group, group->generation_id(),
                                             group->rebalance_timeout_ms());
    _syncs.try_complete_else_watch(op, {group->group_id()});
}

void group_manager::complete_pending_sync(const std::string& group_id) {
    _syncs.check_and_complete(group_id);
}

void group_manager::on_expire_pending_sync(const std::shared_ptr<classic_group>& group,
                                           int32_t generation_id) {
    if (group->generation_id() != generation_id ||
        !(group->is(group_state::completing_rebalance) || group->is(group_state::stable)) ||
        group->pending_sync_members().empty()) {
        return;
    }
    const std::vector<std::string> late(group->pending_sync_members().begin(),
                                        group->pending_sync_members().end());
    for (const auto& id : late) {
        group->remove(id);
        remove_heartbeat(group->group_id(), id);
    }
    prepare_rebalance(group, "removing " + std::to_string(late.size()) +
                                 " member(s) that did not send SyncGroup in time");
}

// ---- Heartbeat --------------------------------------------------------------------

error_code group_manager::heartbeat(const protocol::heartbeat_request& req) {
    if (req.group_id.empty()) {
        return error_code::invalid_group_id;
    }
    if (auto status = coordinator_status(req.group_id); status != error_code::none) {
        return status;
    }
    group_ptr group = find_group(req.group_id);
    if (!group) {
        return error_code::unknown_member_id;
    }
    if (group->is(group_state::dead)) {
        return error_code::coordinator_not_available;
    }
    if (group->is_static_member_fenced(req.group_instance_id, req.member_id)) {
        return error_code::fenced_instance_id;
    }
    if (!group->has(req.member_id)) {
        return error_code::unknown_member_id;
    }
    if (req.generation_id != group->generation_id()) {
        return error_code::illegal_generation;
    }
    group_member& member = *group->get(req.member_id);
    switch (group->state()) {
        case group_state::empty:
        case group_state::dead:
            return error_code::unknown_member_id;
        case group_state::completing_rebalance:
            // Members may heartbeat between their join and sync responses.
            complete_and_schedule_next_heartbeat(group, member, member.session_timeout_ms());
            return error_code::none;
        case group_state::preparing_rebalance:
            // The only way a member learns of a rebalance (GRP-13).
            complete_and_schedule_next_heartbeat(group, member, member.session_timeout_ms());
            return error_code::rebalance_in_progress;
        case group_state::stable:
            complete_and_schedule_next_heartbeat(group, member, member.session_timeout_ms());
            return error_code::none;
    }
    return error_code::none;
}

void group_manager::complete_and_schedule_next_heartbeat(const group_ptr& group,
                                                         group_member& member, int64_t timeout_ms) {
    const std::string key = member_key(group->group_id(), member.member_id());
    member.heartbeat_satisfied = true;
    _heartbeats.check_and_complete(key);
    member.heartbeat_satisfied = false;
    auto op =
        std::make_shared<delayed_heartbeat>(*this, group, member.member_id(), false, timeout_ms);
    _heartbeats.try_complete_else_watch(op, {key});
}

void group_manager::schedule_pending_member_expiration(const group_ptr& group,
                                                       const std::string& member_id,
                                                       int64_t timeout_ms) {
    auto op = std::make_shared<delayed_heartbeat>(*this, group, member_id, true, timeout_ms);
    _heartbeats.try_complete_else_watch(op, {member_key(group->group_id(), member_id)});
}

void group_manager::remove_heartbeat(const std::string& group_id, const std::string& member_id) {
    _heartbeats.check_and_complete(member_key(group_id, member_id));
}

void group_manager::on_expire_heartbeat(const std::shared_ptr<classic_group>& group,
                                        const std::string& member_id, bool is_pending) {
    if (group->is(group_state::dead)) {
        return;
    }
    if (is_pending) {
        if (group->is_pending_member(member_id)) {
            remove_pending_member_and_update_group(group, member_id);
        }
        return;
    }
    const group_member* m = group->get(member_id);
    if (m && !m->has_satisfied_heartbeat()) {
        spdlog::info("event=group_member_expired group={} member={} generation={}",
                     group->group_id(), member_id, group->generation_id());
        remove_member_and_update_group(group, member_id, "session timeout of " + member_id);
    }
}

// ---- LeaveGroup ---------------------------------------------------------------------

protocol::leave_group_response group_manager::leave_group(
    const std::string& group_id,
    const std::vector<protocol::leave_group_request::member_identity>& members) {
    protocol::leave_group_response resp;
    auto respond_each = [&](error_code ec) {
        for (const auto& m : members) {
            auto& out = resp.members.emplace_back();
            out.member_id = m.member_id;
            out.group_instance_id = m.group_instance_id;
            out.error_code = to_wire(ec);
        }
    };
    if (group_id.empty()) {
        resp.error_code = to_wire(error_code::invalid_group_id);
        return resp;
    }
    if (auto status = coordinator_status(group_id); status != error_code::none) {
        resp.error_code = to_wire(status);
        return resp;
    }
    group_ptr group = find_group(group_id);
    if (!group) {
        respond_each(error_code::unknown_member_id);
        return resp;
    }
    if (group->is(group_state::dead)) {
        resp.error_code = to_wire(error_code::coordinator_not_available);
        return resp;
    }
    for (const auto& leaving : members) {
        error_code ec = error_code::none;
        if (leaving.member_id.empty()) {
            // KIP-345: an admin removes a static member by instance id alone.
            auto current = leaving.group_instance_id
                               ? group->static_member_id(*leaving.group_instance_id)
                               : std::nullopt;
            if (current) {
                remove_member_and_update_group(group, *current, "removed by instance id");
            } else {
                ec = error_code::unknown_member_id;
            }
        } else if (group->is_pending_member(leaving.member_id)) {
            remove_pending_member_and_update_group(group, leaving.member_id);
        } else if (group->is_static_member_fenced(leaving.group_instance_id, leaving.member_id)) {
            ec = error_code::fenced_instance_id;
        } else if (group->has(leaving.member_id)) {
            remove_member_and_update_group(group, leaving.member_id,
                                           "member " + leaving.member_id + " left the group");
        } else {
            ec = error_code::unknown_member_id;
        }
        auto& out = resp.members.emplace_back();
        out.member_id = leaving.member_id;
        out.group_instance_id = leaving.group_instance_id;
        out.error_code = to_wire(ec);
    }
    return resp;
}

void group_manager::remove_member_and_update_group(const group_ptr& group,
                                                   const std::string& member_id,
                                                   const std::string& reason) {
    group->remove(member_id);
    remove_heartbeat(group->group_id(), member_id);
    switch (group->state()) {
        case group_state::dead:
        case group_state::empty:
            break;
        case group_state::stable:
        case group_state::completing_rebalance:
            maybe_prepare_rebalance(group, reason);
            break;
        case group_state::preparing_rebalance:
            _joins.check_and_complete(group->group_id());
            break;
    }
}

void group_manager::remove_pending_member_and_update_group(const group_ptr& group,
                                                           const std::string& member_id) {
    group->remove_pending_member(member_id);
    remove_heartbeat(group->group_id(), member_id);
    if (group->is(group_state::preparing_rebalance)) {
        _joins.check_and_complete(group->group_id());
    }
}

}  // namespace samsa::coordinator
