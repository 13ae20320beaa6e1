// The rest of the classic rebalance protocol in group_metadata_manager: SyncGroup
// (the leader's assignment, stored before anyone learns it), Heartbeat
// (sessions), LeaveGroup, and the removal of members that leave, expire or
// never sync (Kafka's GroupCoordinator; seed inventory GRP-11..14, KIP-345).
#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "coordinator/group/delayed_heartbeat.h"
#include "coordinator/group/delayed_sync.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

// ---- SyncGroup ------------------------------------------------------------------

void group_metadata_manager::sync_group(const sync_group_params& req, const request_origin& origin,
                                        sync_callback cb) {
    if (req.group_id.empty()) {
        cb(sync_error(error_code::invalid_group_id));
        return;
    }
    if (auto status = _partitions.status(req.group_id); status != error_code::none) {
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
            for (const auto& [member_id, assignment] : req.assignments) {
                if (group->has(member_id)) {
                    assignments[member_id] = assignment;
                }
            }
            for (const auto& [id, m] : group->members()) {
                assignments.try_emplace(id);  // members the leader left out get nothing
            }
            // The assignment is durable before any member learns it (GRP-11):
            // appended, and on every ISR replica of the offsets partition.
            if (auto err = store_group(*group, assignments); err != error_code::none) {
                logging::groups().warn("event=group_store_failed group={} generation={} error={}",
                                       group->group_id(), group->generation_id(), error_name(err));
                reset_and_propagate_assignment_error(*group, err);
                maybe_prepare_rebalance(group, "error storing the group assignment");
                return;
            }
            const std::string group_id = group->group_id();
            const int32_t generation = group->generation_id();
            _partitions.when_replicated(
                group_id,
                [this, group_id, generation, assignments = std::move(assignments)](error_code ec) {
                    group_ptr g = find_group(group_id);
                    if (!g || g->generation_id() != generation ||
                        g->state() != group_state::completing_rebalance) {
                        return;  // a new rebalance (or an unload) took over meanwhile
                    }
                    if (ec != error_code::none) {
                        const error_code answer = ec == error_code::not_leader_or_follower
                                                      ? error_code::not_coordinator
                                                      : error_code::coordinator_not_available;
                        logging::groups().warn(
                            "event=group_store_failed group={} generation={} error={}", group_id,
                            generation, error_name(ec));
                        reset_and_propagate_assignment_error(*g, answer);
                        maybe_prepare_rebalance(g, "error replicating the group assignment");
                        return;
                    }
                    propagate_assignment(*g, assignments);
                    g->transition_to(group_state::stable, _wall_clock());
                    logging::groups().info("event=group_stable group={} generation={} members={}",
                                           group_id, generation, g->size());
                });
            return;
        }
        case group_state::stable: {
            group->remove_pending_sync_member(req.member_id);
            complete_pending_sync(group->group_id());
            sync_group_result resp;
            resp.protocol_type = group->protocol_type();
            resp.protocol_name = group->protocol_name();
            resp.assignment = member.assignment();
            cb(std::move(resp));
            complete_and_schedule_next_heartbeat(group, member, member.session_timeout_ms());
            return;
        }
    }
}

void group_metadata_manager::reset_and_propagate_assignment_error(classic_group& group,
                                                                  error_code ec) {
    for (const auto& [id, m] : group.members()) {
        m->set_assignment({});
        m->complete_sync(sync_error(ec));
    }
}

void group_metadata_manager::propagate_assignment(classic_group& group,
                                                  const std::map<std::string, bytes>& assignments) {
    std::shared_ptr<classic_group> shared;
    if (auto* part = _partitions.serving(group.group_id())) {
        auto it = part->groups.find(group.group_id());
        if (it != part->groups.end()) {
            shared = as_classic(it->second);
        }
    }
    for (const auto& [id, m] : group.members()) {
        auto a = assignments.find(id);
        m->set_assignment(a == assignments.end() ? bytes{} : a->second);
        sync_group_result resp;
        resp.protocol_type = group.protocol_type();
        resp.protocol_name = group.protocol_name();
        resp.assignment = m->assignment();
        if (m->complete_sync(std::move(resp)) && shared) {
            complete_and_schedule_next_heartbeat(shared, *m, m->session_timeout_ms());
        }
    }
}

void group_metadata_manager::schedule_pending_sync(const group_ptr& group) {
    auto op = std::make_shared<delayed_sync>(*this, group, group->generation_id(),
                                             group->rebalance_timeout_ms());
    _syncs.try_complete_else_watch(op, {group->group_id()});
}

void group_metadata_manager::complete_pending_sync(const std::string& group_id) {
    _syncs.check_and_complete(group_id);
}

void group_metadata_manager::on_expire_pending_sync(const std::shared_ptr<classic_group>& group,
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

error_code group_metadata_manager::heartbeat(const heartbeat_params& req) {
    if (req.group_id.empty()) {
        return error_code::invalid_group_id;
    }
    if (auto status = _partitions.status(req.group_id); status != error_code::none) {
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

void group_metadata_manager::complete_and_schedule_next_heartbeat(const group_ptr& group,
                                                                  group_member& member,
                                                                  int64_t timeout_ms) {
    const std::string key = member_key(group->group_id(), member.member_id());
    member.heartbeat_satisfied = true;
    _heartbeats.check_and_complete(key);
    member.heartbeat_satisfied = false;
    auto op =
        std::make_shared<delayed_heartbeat>(*this, group, member.member_id(), false, timeout_ms);
    _heartbeats.try_complete_else_watch(op, {key});
}

void group_metadata_manager::schedule_pending_member_expiration(const group_ptr& group,
                                                                const std::string& member_id,
                                                                int64_t timeout_ms) {
    auto op = std::make_shared<delayed_heartbeat>(*this, group, member_id, true, timeout_ms);
    _heartbeats.try_complete_else_watch(op, {member_key(group->group_id(), member_id)});
}

void group_metadata_manager::remove_heartbeat(const std::string& group_id,
                                              const std::string& member_id) {
    _heartbeats.check_and_complete(member_key(group_id, member_id));
}

void group_metadata_manager::on_expire_heartbeat(const std::shared_ptr<classic_group>& group,
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
        logging::groups().info("event=group_member_expired group={} member={} generation={}",
                               group->group_id(), member_id, group->generation_id());
        remove_member_and_update_group(group, member_id, "session timeout of " + member_id);
    }
}

// ---- LeaveGroup ---------------------------------------------------------------------

leave_group_result group_metadata_manager::leave_group(const std::string& group_id,
                                                       const std::vector<leaving_member>& members) {
    leave_group_result resp;
    auto respond_each = [&](error_code ec) {
        for (const auto& m : members) {
            auto& out = resp.members.emplace_back();
            out.member_id = m.member_id;
            out.group_instance_id = m.group_instance_id;
            out.error = ec;
        }
    };
    if (group_id.empty()) {
        resp.error = error_code::invalid_group_id;
        return resp;
    }
    if (auto status = _partitions.status(group_id); status != error_code::none) {
        resp.error = status;
        return resp;
    }
    group_ptr group = find_group(group_id);
    if (!group) {
        respond_each(error_code::unknown_member_id);
        return resp;
    }
    if (group->is(group_state::dead)) {
        resp.error = error_code::coordinator_not_available;
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
        out.error = ec;
    }
    return resp;
}

void group_metadata_manager::remove_member_and_update_group(const group_ptr& group,
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

void group_metadata_manager::remove_pending_member_and_update_group(const group_ptr& group,
                                                                    const std::string& member_id) {
    group->remove_pending_member(member_id);
    remove_heartbeat(group->group_id(), member_id);
    if (group->is(group_state::preparing_rebalance)) {
        _joins.check_and_complete(group->group_id());
    }
}

}  // namespace samsa::coordinator
