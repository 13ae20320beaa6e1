// group_metadata_manager: finding and creating groups, loading and unloading
// a partition's groups, and writing a group's metadata record.
#include "coordinator/group/group_metadata_manager.h"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "common/logging/loggers.h"
#include "common/uuid.h"
#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/delayed_heartbeat.h"
#include "coordinator/group/offsets_record_serde.h"

namespace samsa::coordinator {

std::string random_java_uuid_string() {
    const uuid u = uuid::random();
    char out[37];
    const auto& d = u.data;
    std::snprintf(out, sizeof out,
                  "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", d[0],
                  d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13],
                  d[14], d[15]);
    return out;
}

group_metadata_manager::group_metadata_manager(const group_config& config,
                                               cluster::purgatory_driver& driver,
                                               clock_fn wall_clock, group_partitions& partitions)
    : _config(config),
      _wall_clock(std::move(wall_clock)),
      _partitions(partitions),
      _joins("Rebalance", driver),
      _syncs("Rebalance", driver),
      _heartbeats("Heartbeat", driver) {}

// ---- lookup ---------------------------------------------------------------

group_metadata_manager::group_ptr group_metadata_manager::find_group(const std::string& group_id) {
    auto* part = _partitions.serving(group_id);
    if (!part) {
        return nullptr;
    }
    auto it = part->groups.find(group_id);
    return it == part->groups.end() ? nullptr : as_classic(it->second);
}

group_metadata_manager::group_ptr group_metadata_manager::get_or_create_group(
    const std::string& group_id) {
    auto* part = _partitions.serving(group_id);
    if (!part) {
        return nullptr;
    }
    auto& g = part->groups[group_id];
    if (g && g->type() != group_type::classic) {
        // An empty consumer group becomes a classic one, offsets kept (Kafka
        // converts an empty group to the protocol of its next member); one
        // with members is not ours.
        if (!g->is_empty()) {
            return nullptr;
        }
        auto classic = std::make_shared<classic_group>(group_id, group_state::empty, _wall_clock());
        for (const auto& [tp, om] : g->offsets().all()) {
            classic->offsets().put(tp, om);
        }
        _partitions.append(group_id, consumer_group_tombstones(group_id));
        logging::groups().info("event=group_converted group={} from=consumer to=classic", group_id);
        g = classic;
    }
    if (!g) {
        g = std::make_shared<classic_group>(group_id, group_state::empty, _wall_clock());
    }
    return as_classic(g);
}

void group_metadata_manager::remove_dead_group(const std::string& group_id) {
    if (auto* part = _partitions.serving(group_id)) {
        auto it = part->groups.find(group_id);
        if (it != part->groups.end() && it->second->is_dead()) {
            part->groups.erase(it);
        }
    }
}

group_metadata_manager::group_ptr group_metadata_manager::group(const std::string& group_id) const {
    auto* part = _partitions.any(group_id);
    if (!part) {
        return nullptr;
    }
    auto g = part->groups.find(group_id);
    return g == part->groups.end() ? nullptr : as_classic(g->second);
}

size_t group_metadata_manager::group_count() const {
    size_t n = 0;
    _partitions.for_each([&](group_coordinator_shard& part, bool) { n += part.groups.size(); });
    return n;
}

// ---- what offsets ask ---------------------------------------------------------

void group_metadata_manager::reschedule_heartbeat(const group_ptr& group, group_member& member) {
    complete_and_schedule_next_heartbeat(group, member, member.session_timeout_ms());
}

bool group_metadata_manager::maybe_remove_group(group_coordinator_shard& part,
                                                const shared_group& g) {
    // A group with members-to-be (pending ids, KIP-394) is about to be used.
    auto classic = as_classic(g);
    const bool gone =
        g->is_empty() && g->offsets().empty() && (!classic || classic->pending_members() == 0);
    if (!gone) {
        return false;
    }
    g->mark_dead(_wall_clock());
    part.groups.erase(g->group_id());
    logging::groups().info("event=group_removed group={} reason=\"empty without offsets\"",
                           g->group_id());
    return true;
}

// ---- DeleteGroups ---------------------------------------------------------------

shared_group group_metadata_manager::find_any_group(const std::string& group_id) {
    auto* part = _partitions.serving(group_id);
    if (!part) {
        return nullptr;
    }
    auto it = part->groups.find(group_id);
    return it == part->groups.end() ? nullptr : it->second;
}

error_code group_metadata_manager::validate_delete_group(const std::string& group_id) {
    if (auto status = _partitions.status(group_id); status != error_code::none) {
        return status;
    }
    auto g = find_any_group(group_id);
    if (!g || g->is_dead()) {
        return error_code::group_id_not_found;
    }
    if (!g->is_empty()) {
        return error_code::non_empty_group;
    }
    return error_code::none;
}

void group_metadata_manager::remove_group(const std::string& group_id) {
    if (auto g = find_any_group(group_id)) {
        g->mark_dead(_wall_clock());
        remove_dead_group(group_id);
    }
}

// ---- partition lifecycle ----------------------------------------------------

size_t group_metadata_manager::on_loaded(group_coordinator_shard& part,
                                         std::vector<std::unique_ptr<classic_group>> groups) {
    size_t offsets = 0;
    for (auto& g : groups) {
        offsets += g->offsets().size();
        std::string id = g->group_id();
        group_ptr shared(std::move(g));
        part.groups[id] = shared;
        // Loaded members keep their assignment if they heartbeat within
        // their session (a restarted coordinator causes no rebalance).
        for (const auto& [mid, m] : shared->members()) {
            complete_and_schedule_next_heartbeat(shared, *m, m->session_timeout_ms());
        }
    }
    return offsets;
}

void group_metadata_manager::on_unloaded(group_coordinator_shard& part) {
    // The consumer groups are consumer_group_manager's to unload.
    size_t classic = 0;
    for (auto& [id, g] : part.groups) {
        if (auto c = as_classic(g)) {
            retire_group(*c, error_code::not_coordinator);
            ++classic;
        }
    }
    logging::groups().info("event=offsets_partition_unloaded partition={} groups={}",
                           part.partition(), classic);
}

void group_metadata_manager::adopt_downgraded_group(const group_ptr& group, bool rebalance) {
    for (const auto& [mid, m] : group->members()) {
        complete_and_schedule_next_heartbeat(group, *m, m->session_timeout_ms());
    }
    if (!rebalance) {
        return;
    }
    prepare_rebalance(group,
                      "downgrade of group " + group->group_id() + " from consumer to classic");
}

void group_metadata_manager::retire_group(classic_group& group, error_code answer) {
    const group_state prev = group.state();
    group.transition_to(group_state::dead, _wall_clock());
    switch (prev) {
        case group_state::empty:
        case group_state::dead:
            break;
        case group_state::preparing_rebalance:
            for (const auto& [id, m] : group.members()) {
                m->complete_join(join_error(id, answer));
            }
            _joins.check_and_complete(group.group_id());
            break;
        case group_state::completing_rebalance:
        case group_state::stable:
            for (const auto& [id, m] : group.members()) {
                m->complete_sync(sync_error(answer));
                _heartbeats.check_and_complete(member_key(group.group_id(), id));
            }
            _syncs.check_and_complete(group.group_id());
            break;
    }
    // A member can wait for a join response in any state (a rejoin during
    // CompletingRebalance answered later): answer it too.
    for (const auto& [id, m] : group.members()) {
        m->complete_join(join_error(id, answer));
        m->complete_sync(sync_error(answer));
    }
}

// ---- persistence ------------------------------------------------------------

error_code group_metadata_manager::store_group(classic_group& group,
                                               const std::map<std::string, bytes>& assignments) {
    std::vector<coordinator_record> records;
    records.push_back({encode_group_metadata_key(group.group_id()),
                       encode_group_metadata_value(group, assignments)});
    // A write that timed out leaves the members to rejoin (Kafka's storeGroup).
    return coordinator_append_error(_partitions.append(group.group_id(), std::move(records)),
                                    error_code::rebalance_in_progress,
                                    error_code::unknown_server_error);
}

}  // namespace samsa::coordinator
