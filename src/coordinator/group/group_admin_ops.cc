// Group administration in group_manager: ListGroups, DescribeGroups,
// DeleteGroups, and the housekeeping that removes offsets (retention, deleted
// topics).
#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "coordinator/group/group_manager.h"

namespace samsa::coordinator {

std::vector<protocol::list_groups_response::listed_group> group_manager::list_groups(
    const list_groups_filter& filter, bool& loading) const {
    std::vector<protocol::list_groups_response::listed_group> out;
    if (!filter.classic_type) {
        return out;
    }
    for_each_partition([&](group_coordinator_shard& part, bool part_loading) {
        if (part_loading) {
            loading = true;
            return;
        }
        for (const auto& [id, g] : part.groups) {
            if (g->is(group_state::dead)) {
                continue;
            }
            if (!filter.states.empty() && !filter.states.count(g->state())) {
                continue;
            }
            auto& lg = out.emplace_back();
            lg.group_id = id;
            lg.protocol_type = g->protocol_type().value_or("");
            lg.group_state = std::string(group_state_name(g->state()));
            lg.group_type = "classic";
        }
    });
    return out;
}

protocol::describe_groups_response::described_group group_manager::describe_group(
    const std::string& group_id) const {
    protocol::describe_groups_response::described_group out;
    out.group_id = group_id;
    // authorized_operations is the handler's to fill: it knows the principal.
    if (auto status = coordinator_status(group_id); status != error_code::none) {
        out.error_code = to_wire(status);
        return out;
    }
    auto g = group(group_id);
    if (!g || g->is(group_state::dead)) {
        // Kafka describes a group it does not know as Dead, without error.
        out.group_state = std::string(group_state_name(group_state::dead));
        return out;
    }
    out.group_state = std::string(group_state_name(g->state()));
    out.protocol_type = g->protocol_type().value_or("");
    const bool stable = g->is(group_state::stable);
    // Member metadata and assignments mean something only once stable.
    if (stable) {
        out.protocol_data = g->protocol_name().value_or("");
    }
    for (const auto& [id, m] : g->members()) {
        auto& om = out.members.emplace_back();
        om.member_id = id;
        om.group_instance_id = m->group_instance_id();
        om.client_id = m->client_id();
        om.client_host = m->client_host();
        if (stable) {
            if (const bytes* md = m->metadata(out.protocol_data)) {
                om.member_metadata = *md;
            }
            om.member_assignment = m->assignment();
        }
    }
    return out;
}

error_code group_manager::delete_group(const std::string& group_id) {
    if (auto status = coordinator_status(group_id); status != error_code::none) {
        return status;
    }
    group_ptr g = find_group(group_id);
    if (!g || g->is(group_state::dead)) {
        return error_code::group_id_not_found;
    }
    if (!g->is(group_state::empty)) {
        return error_code::non_empty_group;
    }
    std::vector<storage::topic_partition> offsets;
    for (const auto& [tp, om] : g->offsets().all()) {
        offsets.push_back(tp);
    }
    g->offsets().clear();
    g->transition_to(group_state::dead, _wall_clock());
    write_tombstones(group_id, offsets, true);
    remove_dead_group(group_id);
    logging::groups().info("event=group_deleted group={} offsets={}", group_id, offsets.size());
    return error_code::none;
}

void group_manager::remove_offsets_of_topics(const std::set<std::string>& topics) {
    for_each_partition([&](group_coordinator_shard& part, bool loading) {
        if (loading) {
            // Applied when the load finishes, to what it loaded.
            part.deleted_topics.insert(topics.begin(), topics.end());
            return;
        }
        std::vector<group_ptr> groups;
        for (const auto& [id, g] : part.groups) {
            groups.push_back(g);
        }
        for (const auto& g : groups) {
            auto removed = g->offsets().remove_topics(topics);
            cleanup_group(part, g, removed);
        }
    });
}

size_t group_manager::expire_offsets() {
    const int64_t now = _wall_clock();
    size_t expired = 0;
    for_each_partition([&](group_coordinator_shard& part, bool loading) {
        if (loading) {
            return;
        }
        std::vector<group_ptr> groups;
        for (const auto& [id, g] : part.groups) {
            groups.push_back(g);
        }
        for (const auto& g : groups) {
            auto removed = g->expire_offsets(now, _config.offsets_retention_ms);
            expired += removed.size();
            cleanup_group(part, g, removed);
        }
    });
    if (expired > 0) {
        logging::groups().info("event=offsets_expired count={}", expired);
    }
    return expired;
}

}  // namespace samsa::coordinator
