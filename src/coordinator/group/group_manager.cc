#include "coordinator/group/group_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "common/logging/loggers.h"
#include "common/uuid.h"
#include "coordinator/group/delayed_heartbeat.h"
#include "coordinator/group/group_partitioner.h"
#include "coordinator/group/offsets_loader.h"
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

group_manager::group_manager(group_config config, cluster::purgatory_driver& driver,
                             clock_fn wall_clock)
    : _config(config),
      _driver(driver),
      _wall_clock(std::move(wall_clock)),
      _joins("Rebalance", driver),
      _syncs("Rebalance", driver),
      _heartbeats("Heartbeat", driver),
      _runtime(coordinator_runtime_config{std::string(offsets_topic), _config.load_chunk_bytes,
                                          _config.offset_commit_timeout_ms},
               driver, _wall_clock, [this](int32_t partition) {
                   return std::make_unique<group_coordinator_shard>(
                       partition,
                       [this](group_coordinator_shard& part, offsets_loader& loader) {
                           finish_load(part, loader);
                       },
                       [this](group_coordinator_shard& part) { unload_partition(part); });
               }) {
    _expiration_task = std::make_unique<callback_task>([this] {
        expire_offsets();
        arm_expiration_timer();
    });
    arm_expiration_timer();
}

group_manager::~group_manager() {
    _expiration_task.reset();
}

void group_manager::arm_expiration_timer() {
    _driver.schedule(*_expiration_task,
                     std::max<int64_t>(1, _config.offsets_retention_check_interval_ms));
}

// ---- lookup ---------------------------------------------------------------

int32_t group_manager::partition_of(const std::string& group_id) const {
    return offsets_partition_for(group_id, _config.offsets_topic_num_partitions);
}

error_code group_manager::coordinator_status(const std::string& group_id) const {
    return _runtime.status(partition_of(group_id));
}

bool group_manager::is_loading(int32_t partition) const {
    return _runtime.is_loading(partition);
}

bool group_manager::is_loaded(int32_t partition) const {
    return _runtime.is_loaded(partition);
}

bool group_manager::any_loading() const {
    return _runtime.any_loading();
}

group_coordinator_shard* group_manager::serving_partition(const std::string& group_id) {
    return static_cast<group_coordinator_shard*>(_runtime.loaded(partition_of(group_id)));
}

void group_manager::for_each_partition(
    const std::function<void(group_coordinator_shard&, bool)>& fn) const {
    _runtime.for_each([&](int32_t, coordinator_shard& s, bool loading) {
        fn(static_cast<group_coordinator_shard&>(s), loading);
    });
}

group_manager::group_ptr group_manager::find_group(const std::string& group_id) {
    auto* part = serving_partition(group_id);
    if (!part) {
        return nullptr;
    }
    auto it = part->groups.find(group_id);
    return it == part->groups.end() ? nullptr : it->second;
}

group_manager::group_ptr group_manager::get_or_create_group(const std::string& group_id) {
    auto* part = serving_partition(group_id);
    if (!part) {
        return nullptr;
    }
    auto& g = part->groups[group_id];
    if (!g) {
        g = std::make_shared<classic_group>(group_id, group_state::empty, _wall_clock());
    }
    return g;
}

void group_manager::remove_dead_group(const std::string& group_id) {
    if (auto* part = serving_partition(group_id)) {
        auto it = part->groups.find(group_id);
        if (it != part->groups.end() && it->second->is(group_state::dead)) {
            part->groups.erase(it);
        }
    }
}

std::shared_ptr<classic_group> group_manager::group(const std::string& group_id) const {
    auto* part = static_cast<group_coordinator_shard*>(_runtime.shard(partition_of(group_id)));
    if (!part) {
        return nullptr;
    }
    auto g = part->groups.find(group_id);
    return g == part->groups.end() ? nullptr : g->second;
}

size_t group_manager::group_count() const {
    size_t n = 0;
    for_each_partition([&](group_coordinator_shard& part, bool) { n += part.groups.size(); });
    return n;
}

// ---- partition lifecycle ----------------------------------------------------

void group_manager::on_elected(int32_t partition, cluster::partition* log) {
    _runtime.on_elected(partition, log);
}

void group_manager::on_resigned(int32_t partition) {
    _runtime.on_resigned(partition);
}

void group_manager::finish_load(group_coordinator_shard& part, offsets_loader& loader) {
    const int32_t partition = part.partition();
    size_t offsets = 0;
    for (auto& g : loader.finish(_wall_clock())) {
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
    part.pending_txn_offsets = loader.pending_transactions();
    if (!part.deleted_topics.empty()) {
        auto topics = std::move(part.deleted_topics);
        part.deleted_topics.clear();
        std::vector<group_ptr> groups;
        for (const auto& [id, g] : part.groups) {
            groups.push_back(g);
        }
        for (const auto& g : groups) {
            cleanup_group(part, g, g->offsets().remove_topics(topics));
        }
    }
    // An empty partition (most of them, on a fresh broker) is not news.
    logging::groups().log(
        loader.records_read() > 0 ? spdlog::level::info : spdlog::level::debug,
        "event=offsets_partition_loaded partition={} groups={} offsets={} records={}", partition,
        part.groups.size(), offsets, loader.records_read());
}

void group_manager::unload_partition(group_coordinator_shard& part) {
    auto groups = std::move(part.groups);
    for (auto& [id, g] : groups) {
        unload_group(*g);
    }
    logging::groups().info("event=offsets_partition_unloaded partition={} groups={}",
                           part.partition(), groups.size());
}

void group_manager::unload_group(classic_group& group) {
    const group_state prev = group.state();
    group.transition_to(group_state::dead, _wall_clock());
    switch (prev) {
        case group_state::empty:
        case group_state::dead:
            break;
        case group_state::preparing_rebalance:
            for (const auto& [id, m] : group.members()) {
                m->complete_join(join_error(id, error_code::not_coordinator));
            }
            _joins.check_and_complete(group.group_id());
            break;
        case group_state::completing_rebalance:
        case group_state::stable:
            for (const auto& [id, m] : group.members()) {
                m->complete_sync(sync_error(error_code::not_coordinator));
                _heartbeats.check_and_complete(member_key(group.group_id(), id));
            }
            _syncs.check_and_complete(group.group_id());
            break;
    }
    // A member can wait for a join response in any state (a rejoin during
    // CompletingRebalance answered later): answer it too.
    for (const auto& [id, m] : group.members()) {
        m->complete_join(join_error(id, error_code::not_coordinator));
        m->complete_sync(sync_error(error_code::not_coordinator));
    }
}

// ---- persistence ------------------------------------------------------------

void group_manager::when_appends_replicated(const std::string& group_id,
                                            std::function<void(error_code)> done) {
    // Bounded by offsets.commit.timeout.ms, as Kafka bounds every append of
    // the coordinator (commits and group assignments alike).
    _runtime.when_replicated(partition_of(group_id), std::move(done));
}

error_code group_manager::append(const std::string& group_id, std::vector<record_kv> records,
                                 const std::optional<txn_producer>& txn) {
    return _runtime.append(partition_of(group_id), records, txn);
}

error_code group_manager::store_group(classic_group& group,
                                      const std::map<std::string, bytes>& assignments) {
    std::vector<record_kv> records;
    records.push_back({encode_group_metadata_key(group.group_id()),
                       encode_group_metadata_value(group, assignments)});
    switch (error_code ec = append(group.group_id(), std::move(records))) {
        case error_code::unknown_topic_or_partition:
        case error_code::not_enough_replicas:
        case error_code::not_enough_replicas_after_append:
            return error_code::coordinator_not_available;
        case error_code::not_leader_or_follower:
        case error_code::kafka_storage_error:
            return error_code::not_coordinator;
        case error_code::request_timed_out:
            return error_code::rebalance_in_progress;
        case error_code::message_too_large:
        case error_code::record_list_too_large:
        case error_code::invalid_fetch_size:
            return error_code::unknown_server_error;
        default:
            return ec;
    }
}

void group_manager::write_tombstones(const std::string& group_id,
                                     const std::vector<storage::topic_partition>& offsets,
                                     bool group_tombstone) {
    std::vector<record_kv> records;
    for (const auto& tp : offsets) {
        records.push_back({encode_offset_commit_key(group_id, tp), std::nullopt});
    }
    if (group_tombstone) {
        records.push_back({encode_group_metadata_key(group_id), std::nullopt});
    }
    if (records.empty()) {
        return;
    }
    // The cache is already updated; a failed tombstone leaves a record that
    // reappears on the next load, as in Kafka.
    (void)append(group_id, std::move(records));
}

}  // namespace samsa::coordinator
