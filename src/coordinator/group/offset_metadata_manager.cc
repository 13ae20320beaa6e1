// offset_metadata_manager: OffsetCommit, OffsetFetch and OffsetDelete
// (Kafka's OffsetMetadataManager.commitOffset, fetchOffsets, deleteOffsets;
// seed inventory GRP-19, OFS-02), DeleteGroups' offsets, retention and the
// offsets of deleted topics.
#include "coordinator/group/offset_metadata_manager.h"

#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "coordinator/group/consumer_group.h"
#include "coordinator/group/offsets_record_serde.h"

namespace samsa::coordinator {

namespace {

error_code fail_pending(std::vector<offset_commit_item>& items, error_code ec) {
    for (auto& it : items) {
        if (it.error == error_code::none) {
            it.error = ec;
        }
    }
    return ec;
}

}  // namespace

offset_metadata_manager::offset_metadata_manager(const group_config& config, clock_fn wall_clock,
                                                 group_partitions& partitions,
                                                 group_metadata_manager& groups)
    : _config(config),
      _wall_clock(std::move(wall_clock)),
      _partitions(partitions),
      _groups(groups) {}

error_code offset_metadata_manager::commit_offsets(
    const std::string& group_id, int32_t generation_id, const std::string& member_id,
    const std::optional<std::string>& group_instance_id, std::vector<offset_commit_item>& items,
    int16_t api_version, const std::optional<txn_producer>& txn) {
    // An empty group id is allowed here, as in Kafka.
    if (auto status = _partitions.status(group_id); status != error_code::none) {
        return fail_pending(items, status);
    }
    shared_group any = _groups.find_any_group(group_id);
    if (!any) {
        if (generation_id >= 0) {
            // A member of a generation this coordinator never saw.
            return fail_pending(items, error_code::illegal_generation);
        }
        // Not group-managed: the group only stores offsets.
        any = _groups.get_or_create_group(group_id);
    }
    if (any->is_dead()) {
        return fail_pending(items, error_code::coordinator_not_available);
    }
    if (any->type() == group_type::consumer) {
        // KIP-848: the generation is the member's epoch.
        auto& cg = static_cast<consumer_group&>(*any);
        const offset_commit_validation v = cg.validate_offset_commit(
            member_id, group_instance_id, generation_id, txn.has_value(), api_version);
        if (v.error != error_code::none) {
            return fail_pending(items, v.error);
        }
        for (auto& it : items) {
            if (it.error == error_code::none) {
                it.error = v.check(it.topic_id, it.tp.partition);
            }
        }
    } else if (auto ec = validate_classic_commit(*as_classic(any), generation_id, member_id,
                                                 group_instance_id, txn.has_value());
               ec != error_code::none) {
        return fail_pending(items, ec);
    }
    std::vector<coordinator_record> records;
    std::vector<offset_commit_item*> written;
    for (auto& it : items) {
        if (it.error != error_code::none) {
            continue;
        }
        if (int64_t(it.value.metadata.size()) > _config.offset_metadata_max_bytes) {
            it.error = error_code::offset_metadata_too_large;
            continue;
        }
        records.push_back(
            {encode_offset_commit_key(group_id, it.tp), encode_offset_commit_value(it.value)});
        written.push_back(&it);
    }
    if (records.empty()) {
        return error_code::none;
    }
    // A commit that timed out says so (Kafka's commit error mapping).
    const error_code err = coordinator_append_error(
        _partitions.append(group_id, std::move(records), txn), error_code::request_timed_out,
        error_code::invalid_commit_offset_size);
    auto* part = txn && err == error_code::none ? _partitions.serving(group_id) : nullptr;
    for (auto* it : written) {
        it->error = err;
        if (err != error_code::none) {
            continue;
        }
        if (part) {
            part->pending_txn_offsets[txn->producer_id][{group_id, it->tp}] = it->value;
        } else {
            any->offsets().put(it->tp, it->value);
        }
    }
    return err;
}

error_code offset_metadata_manager::validate_classic_commit(
    classic_group& group, int32_t generation_id, const std::string& member_id,
    const std::optional<std::string>& group_instance_id, bool transactional) {
    if (group.is_static_member_fenced(group_instance_id, member_id)) {
        return error_code::fenced_instance_id;
    }
    const bool simple = generation_id < 0 && group.is(group_state::empty);
    if (simple) {
        return error_code::none;
    }
    if (transactional) {
        // Kafka's handleTxnCommitOffsets: a member, when named, must be one,
        // and a generation, when given, the group's; the rebalance state is
        // not consulted (the transaction's marker decides).
        if (!member_id.empty() && !group.has(member_id)) {
            return error_code::unknown_member_id;
        }
        if (generation_id >= 0 && generation_id != group.generation_id()) {
            return error_code::illegal_generation;
        }
        return error_code::none;
    }
    if (!group.has(member_id)) {
        return error_code::unknown_member_id;
    }
    if (generation_id != group.generation_id()) {
        return error_code::illegal_generation;
    }
    switch (group.state()) {
        case group_state::completing_rebalance:
            // The member has its join response but not its assignment: it
            // must finish the rebalance first.
            return error_code::rebalance_in_progress;
        case group_state::stable:
        case group_state::preparing_rebalance: {
            // A commit during PreparingRebalance is fine: the member learns
            // of the rebalance from its next heartbeat.
            auto shared = as_classic(_groups.find_any_group(group.group_id()));
            _groups.reschedule_heartbeat(shared, *group.get(member_id));
            return error_code::none;
        }
        case group_state::empty:
        case group_state::dead:
            return error_code::unknown_member_id;
    }
    return error_code::none;
}

void offset_metadata_manager::complete_txn(int32_t partition, int64_t producer_id, bool commit) {
    auto* part = _partitions.loaded(partition);
    if (!part) {
        return;
    }
    auto it = part->pending_txn_offsets.find(producer_id);
    if (it == part->pending_txn_offsets.end()) {
        return;
    }
    auto pending = std::move(it->second);
    part->pending_txn_offsets.erase(it);
    if (!commit) {
        return;
    }
    for (auto& [key, value] : pending) {
        // The group may have gone since the commit: it comes back offsets-only.
        shared_group g = _groups.find_any_group(key.first);
        if (!g) {
            g = _groups.get_or_create_group(key.first);
        }
        if (g) {
            g->offsets().put(key.second, value);
        }
    }
}

offset_fetch_result offset_metadata_manager::fetch_offsets(
    const std::string& group_id,
    const std::optional<std::vector<storage::topic_partition>>& partitions, bool require_stable,
    const std::optional<std::string>& member_id, int32_t member_epoch) {
    offset_fetch_result out;
    if (auto status = _partitions.status(group_id); status != error_code::none) {
        out.error = status;
        return out;
    }
    shared_group group = _groups.find_any_group(group_id);
    if (group && group->is_dead()) {
        group = nullptr;
    }
    if (group && group->type() == group_type::consumer && (member_id || member_epoch >= 0)) {
        // OffsetFetch v9+ from a member (KIP-848): its epoch must be current.
        out.error = static_cast<consumer_group&>(*group).validate_offset_fetch(
            member_id.value_or(""), member_epoch);
        if (out.error != error_code::none) {
            return out;
        }
    }
    // require_stable (KIP-447): UNSTABLE_OFFSET_COMMIT on partitions with a
    // transactional commit in flight, so a new consumer does not start
    // from an offset that is about to change.
    auto* part = require_stable ? _partitions.serving(group_id) : nullptr;
    auto pending = [part, &group_id](const storage::topic_partition& tp) {
        if (!part) {
            return false;
        }
        for (const auto& [pid, offsets] : part->pending_txn_offsets) {
            if (offsets.count({group_id, tp})) {
                return true;
            }
        }
        return false;
    };
    auto answer = [&out, &pending](const storage::topic_partition& tp,
                                   const offset_and_metadata* om) {
        auto& p = out.partitions.emplace_back();
        p.tp = tp;
        if (pending(tp)) {
            p.error = error_code::unstable_offset_commit;
            return;
        }
        if (om) {
            p.offset = om->offset;
            p.leader_epoch = om->leader_epoch;
            p.metadata = om->metadata;
        }
    };
    if (!partitions) {
        if (group) {
            for (const auto& [tp, om] : group->offsets().all()) {
                answer(tp, &om);
            }
        }
        return out;
    }
    for (const auto& tp : *partitions) {
        answer(tp, group ? group->offsets().get(tp) : nullptr);
    }
    return out;
}

error_code offset_metadata_manager::delete_offsets(const std::string& group_id,
                                                   std::vector<offset_delete_item>& items) {
    if (group_id.empty()) {
        return error_code::invalid_group_id;
    }
    if (auto status = _partitions.status(group_id); status != error_code::none) {
        return status;
    }
    shared_group group = _groups.find_any_group(group_id);
    if (!group || group->is_dead()) {
        return error_code::group_id_not_found;
    }
    const bool empty = group->is_empty();
    if (!empty && group->protocol_type_name() != consumer_protocol_type) {
        return error_code::non_empty_group;
    }
    std::vector<storage::topic_partition> removed;
    for (auto& it : items) {
        if (it.error != error_code::none) {
            continue;
        }
        // A consumer group may lose the offsets of topics nobody consumes.
        if (!empty && group->is_subscribed_to_topic(it.tp.topic)) {
            it.error = error_code::group_subscribed_to_topic;
            continue;
        }
        if (group->offsets().remove(it.tp)) {
            removed.push_back(it.tp);
        }
    }
    if (auto* part = _partitions.serving(group_id)) {
        cleanup_group(*part, group, removed);
    }
    return error_code::none;
}

void offset_metadata_manager::cleanup_group(group_coordinator_shard& part,
                                            const shared_group& group,
                                            const std::vector<storage::topic_partition>& removed) {
    const bool gone = _groups.maybe_remove_group(part, group);
    if (removed.empty() && !gone) {
        return;
    }
    _partitions.write_tombstones(group->group_id(), removed,
                                 gone ? std::optional(group->type()) : std::nullopt);
}

std::vector<storage::topic_partition> offset_metadata_manager::delete_all_offsets(
    coordinator::group& group) {
    std::vector<storage::topic_partition> offsets;
    for (const auto& [tp, om] : group.offsets().all()) {
        offsets.push_back(tp);
    }
    group.offsets().clear();
    return offsets;
}

void offset_metadata_manager::for_each_loaded_group(
    const std::function<void(group_coordinator_shard&, const shared_group&)>& fn) {
    _partitions.for_each([&](group_coordinator_shard& part, bool loading) {
        if (loading) {
            return;
        }
        std::vector<shared_group> groups;
        for (const auto& [id, g] : part.groups) {
            groups.push_back(g);
        }
        for (const auto& g : groups) {
            fn(part, g);
        }
    });
}

void offset_metadata_manager::remove_offsets_of_topics(const std::set<std::string>& topics) {
    _partitions.for_each([&](group_coordinator_shard& part, bool loading) {
        if (loading) {
            // Applied when the load finishes, to what it loaded.
            part.deleted_topics.insert(topics.begin(), topics.end());
        }
    });
    for_each_loaded_group([&](group_coordinator_shard& part, const shared_group& g) {
        cleanup_group(part, g, g->offsets().remove_topics(topics));
    });
}

size_t offset_metadata_manager::expire_offsets() {
    const int64_t now = _wall_clock();
    size_t expired = 0;
    for_each_loaded_group([&](group_coordinator_shard& part, const shared_group& g) {
        auto removed = g->expire_offsets(now, _config.offsets_retention_ms);
        expired += removed.size();
        cleanup_group(part, g, removed);
    });
    if (expired > 0) {
        logging::groups().info("event=offsets_expired count={}", expired);
    }
    return expired;
}

void offset_metadata_manager::on_loaded(
    group_coordinator_shard& part,
    std::map<int64_t, std::map<group_coordinator_shard::txn_offset_key, offset_and_metadata>>
        pending_txn_offsets) {
    part.pending_txn_offsets = std::move(pending_txn_offsets);
    if (part.deleted_topics.empty()) {
        return;
    }
    auto topics = std::move(part.deleted_topics);
    part.deleted_topics.clear();
    std::vector<shared_group> groups;
    for (const auto& [id, g] : part.groups) {
        groups.push_back(g);
    }
    for (const auto& g : groups) {
        cleanup_group(part, g, g->offsets().remove_topics(topics));
    }
}

}  // namespace samsa::coordinator
