#include "coordinator/group/group_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/post.hpp>
#include <cstdio>

#include "common/uuid.h"
#include "coordinator/group/delayed_heartbeat.h"
#include "coordinator/group/group_partitioner.h"
#include "coordinator/group/offsets_loader.h"
#include "coordinator/group/offsets_record_serde.h"
#include "record/batch_builder.h"
#include "record/batch_iterator.h"

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
      _joins("group-join", driver),
      _syncs("group-sync", driver),
      _heartbeats("group-heartbeat", driver) {
    _expiration_task = std::make_unique<callback_task>([this] {
        expire_offsets();
        arm_expiration_timer();
    });
    arm_expiration_timer();
}

group_manager::~group_manager() {
    _alive.reset();
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
    auto it = _partitions.find(partition_of(group_id));
    if (it == _partitions.end()) {
        return error_code::not_coordinator;
    }
    return it->second.loading ? error_code::coordinator_load_in_progress : error_code::none;
}

bool group_manager::is_loading(int32_t partition) const {
    auto it = _partitions.find(partition);
    return it != _partitions.end() && it->second.loading;
}

bool group_manager::is_loaded(int32_t partition) const {
    auto it = _partitions.find(partition);
    return it != _partitions.end() && !it->second.loading;
}

bool group_manager::any_loading() const {
    for (const auto& [p, part] : _partitions) {
        if (part.loading) {
            return true;
        }
    }
    return false;
}

group_manager::offsets_partition* group_manager::serving_partition(const std::string& group_id) {
    auto it = _partitions.find(partition_of(group_id));
    if (it == _partitions.end() || it->second.loading) {
        return nullptr;
    }
    return &it->second;
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
    auto it = _partitions.find(partition_of(group_id));
    if (it == _partitions.end()) {
        return nullptr;
    }
    auto g = it->second.groups.find(group_id);
    return g == it->second.groups.end() ? nullptr : g->second;
}

size_t group_manager::group_count() const {
    size_t n = 0;
    for (const auto& [p, part] : _partitions) {
        n += part.groups.size();
    }
    return n;
}

// ---- partition lifecycle ----------------------------------------------------

void group_manager::on_elected(int32_t partition, cluster::partition* log) {
    if (auto it = _partitions.find(partition); it != _partitions.end()) {
        if (!it->second.loading) {
            // A new leader epoch while we stayed leader: every record of the
            // partition went through this cache, which is therefore current.
            it->second.log = log;
            return;
        }
        on_resigned(partition);  // loading: start over
    }
    auto& part = _partitions[partition];
    part.log = log;
    part.loading = true;
    part.epoch = ++_elections;
    spdlog::debug("event=offsets_partition_loading partition={} leader_epoch={}", partition,
                  log->leader_epoch());
    auto loader = std::make_shared<offsets_loader>();
    const int64_t start = log->log()->log_start_offset();
    const uint64_t epoch = part.epoch;
    asio::post(_driver.executor(),
               [this, alive = std::weak_ptr<char>(_alive), partition, epoch, start, loader] {
                   if (alive.lock()) {
                       load_step(partition, epoch, start, loader);
                   }
               });
}

void group_manager::load_step(int32_t partition, uint64_t epoch, int64_t next_offset,
                              std::shared_ptr<offsets_loader> loader) {
    auto it = _partitions.find(partition);
    if (it == _partitions.end() || it->second.epoch != epoch || !it->second.loading) {
        return;  // resigned (or re-elected) meanwhile
    }
    auto& part = it->second;
    const auto& log = *part.log->log();
    next_offset = std::max(next_offset, log.log_start_offset());
    if (next_offset >= log.log_end_offset()) {
        finish_load(part, partition, *loader);
        return;
    }
    auto read = log.read(next_offset, _config.load_chunk_bytes, -1, true);
    if (!read) {
        // Kafka serves what it loaded when a load fails; so do we.
        spdlog::error("event=offsets_load_failed partition={} offset={} error=\"{}\"", partition,
                      next_offset, read.err().message);
        finish_load(part, partition, *loader);
        return;
    }
    auto data = read->records.read();
    if (!data) {
        spdlog::error("event=offsets_load_failed partition={} offset={} error=\"{}\"", partition,
                      next_offset, data.err().message);
        finish_load(part, partition, *loader);
        return;
    }
    record::batch_iterator batches(*data);
    int64_t advanced_to = next_offset;
    while (auto b = batches.next()) {
        if (b->header.last_offset() < next_offset) {
            continue;  // the read starts at the segment position of an earlier batch
        }
        if (auto st = loader->apply_batch(b->data); !st) {
            spdlog::warn("event=offsets_load_batch_skipped partition={} offset={} error=\"{}\"",
                         partition, b->header.base_offset, st.err().message);
        }
        advanced_to = b->header.last_offset() + 1;
    }
    if (advanced_to == next_offset) {
        // Nothing whole to read here: the rest of the log is not ours to load.
        finish_load(part, partition, *loader);
        return;
    }
    // One chunk per turn of the reactor: other work runs between chunks.
    asio::post(_driver.executor(),
               [this, alive = std::weak_ptr<char>(_alive), partition, epoch, advanced_to, loader] {
                   if (alive.lock()) {
                       load_step(partition, epoch, advanced_to, loader);
                   }
               });
}

void group_manager::finish_load(offsets_partition& part, int32_t partition,
                                offsets_loader& loader) {
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
    part.loading = false;
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
    spdlog::log(loader.records_read() > 0 ? spdlog::level::info : spdlog::level::debug,
                "event=offsets_partition_loaded partition={} groups={} offsets={} records={}",
                partition, part.groups.size(), offsets, loader.records_read());
}

void group_manager::on_resigned(int32_t partition) {
    auto it = _partitions.find(partition);
    if (it == _partitions.end()) {
        return;
    }
    auto groups = std::move(it->second.groups);
    _partitions.erase(it);
    for (auto& [id, g] : groups) {
        unload_group(*g);
    }
    spdlog::info("event=offsets_partition_unloaded partition={} groups={}", partition,
                 groups.size());
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
    auto it = _partitions.find(partition_of(group_id));
    if (it == _partitions.end() || !it->second.log) {
        done(error_code::not_coordinator);
        return;
    }
    cluster::partition* p = it->second.log;
    // Bounded by offsets.commit.timeout.ms, as Kafka bounds every append of
    // the coordinator (commits and group assignments alike): REQUEST_TIMED_OUT
    // when the ISR does not catch up in time. Whichever comes first answers.
    struct pending {
        std::function<void(error_code)> done;
        std::unique_ptr<callback_task> timeout;
        // Answers once: by the replication or by the timeout, whichever first.
        void finish(error_code ec) {
            if (done) {
                auto d = std::move(done);
                done = nullptr;
                d(ec);
            }
        }
    };
    auto state = std::make_shared<pending>();
    state->done = std::move(done);
    std::weak_ptr<pending> weak = state;
    state->timeout = std::make_unique<callback_task>([weak] {
        if (auto s = weak.lock()) {
            s->finish(error_code::request_timed_out);
        }
    });
    _driver.schedule(*state->timeout, std::max(1, _config.offset_commit_timeout_ms));
    p->when_replicated(p->log()->log_end_offset(), [state](error_code ec) {
        state->timeout->cancel();
        state->finish(ec);
    });
}

error_code group_manager::append(const std::string& group_id, std::vector<record_kv> records) {
    auto it = _partitions.find(partition_of(group_id));
    if (it == _partitions.end() || it->second.loading || !it->second.log) {
        return error_code::not_leader_or_follower;
    }
    const int64_t now = _wall_clock();
    record::batch_builder builder;
    for (const auto& r : records) {
        std::optional<bytes_view> value;
        if (r.value) {
            value = bytes_view(*r.value);
        }
        builder.add(now, bytes_view(r.key), value);
    }
    auto batch = builder.build();
    if (!batch) {
        return batch.err().code;
    }
    auto out = it->second.log->append_internal(*batch, now);
    if (out.error.code != error_code::none) {
        spdlog::warn("event=offsets_append_failed group={} error=\"{}\"", group_id,
                     out.error.message.empty() ? std::string(error_name(out.error.code))
                                               : out.error.message);
    }
    return out.error.code;
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
