// Group administration in group_metadata_manager: ListGroups and
// DescribeGroups.
#include <spdlog/spdlog.h>

#include "common/ascii.h"
#include "common/logging/loggers.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

std::vector<listed_group> group_metadata_manager::list_groups(const list_groups_filter& filter,
                                                              bool& loading) const {
    std::vector<listed_group> out;
    _partitions.for_each([&](group_coordinator_shard& part, bool part_loading) {
        if (part_loading) {
            loading = true;
            return;
        }
        for (const auto& [id, g] : part.groups) {
            if (g->is_dead()) {
                continue;
            }
            if (!filter.types.empty() && !filter.types.count(g->type())) {
                continue;
            }
            std::string state = g->state_name();
            if (!filter.states.empty() && !filter.states.count(ascii_lower(state))) {
                continue;
            }
            auto& lg = out.emplace_back();
            lg.group_id = id;
            lg.protocol_type = g->protocol_type_name();
            lg.group_state = std::move(state);
            lg.group_type = std::string(group_type_name(g->type()));
        }
    });
    return out;
}

described_group group_metadata_manager::describe_group(const std::string& group_id) const {
    described_group out;
    out.group_id = group_id;
    // authorized_operations is the handler's to fill: it knows the principal.
    if (auto status = _partitions.status(group_id); status != error_code::none) {
        out.error = status;
        return out;
    }
    if (auto* part = _partitions.any(group_id)) {
        auto it = part->groups.find(group_id);
        if (it != part->groups.end() && it->second->type() != group_type::classic &&
            !it->second->is_dead()) {
            // KIP-848: DescribeGroups describes classic groups only (Kafka:
            // "Group ... is not a classic group."); ConsumerGroupDescribe
            // describes the others.
            out.error = error_code::group_id_not_found;
            return out;
        }
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

}  // namespace samsa::coordinator
