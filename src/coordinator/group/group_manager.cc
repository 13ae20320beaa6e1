#include "coordinator/group/group_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/logging/loggers.h"
#include "coordinator/group/offsets_loader.h"

namespace samsa::coordinator {

group_manager::group_manager(group_config config, cluster::purgatory_driver& driver,
                             clock_fn wall_clock)
    : _config(config),
      _driver(driver),
      _wall_clock(std::move(wall_clock)),
      _partitions(_config, driver, _wall_clock,
                  [this](int32_t partition) {
                      return std::make_unique<group_coordinator_shard>(
                          partition,
                          [this](group_coordinator_shard& part, offsets_loader& loader) {
                              finish_load(part, loader);
                          },
                          [this](group_coordinator_shard& part) { unload(part); });
                  }),
      _groups(_config, driver, _wall_clock, _partitions),
      _consumers(_config, driver, _wall_clock, _partitions, _groups),
      _offsets(_config, _wall_clock, _partitions, _groups) {
    _expiration_task = std::make_unique<callback_task>([this] {
        _offsets.expire_offsets();
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

// ---- the classic protocol ---------------------------------------------------

std::shared_ptr<consumer_group> group_manager::consumer_group_with_members(
    const std::string& group_id) {
    auto g = _groups.find_any_group(group_id);
    if (!g || g->type() != group_type::consumer || g->is_dead() || g->is_empty()) {
        return nullptr;
    }
    return std::static_pointer_cast<consumer_group>(g);
}

void group_manager::join_group(const join_group_params& req, const request_origin& origin,
                               const metadata::metadata_image& image, join_callback cb) {
    if (auto g = consumer_group_with_members(req.group_id)) {
        _consumers.classic_join(*g, req, origin, image, std::move(cb));
        return;
    }
    _groups.join_group(req, origin, std::move(cb));
}

void group_manager::sync_group(const sync_group_params& req, const request_origin& origin,
                               sync_callback cb) {
    if (auto g = consumer_group_with_members(req.group_id)) {
        _consumers.classic_sync(*g, req, std::move(cb));
        return;
    }
    _groups.sync_group(req, origin, std::move(cb));
}

error_code group_manager::heartbeat(const heartbeat_params& req) {
    if (auto g = consumer_group_with_members(req.group_id)) {
        return _consumers.classic_heartbeat(*g, req);
    }
    return _groups.heartbeat(req);
}

leave_group_result group_manager::leave_group(const std::string& group_id,
                                              const std::vector<leaving_member>& members) {
    if (auto g = consumer_group_with_members(group_id)) {
        return _consumers.classic_leave(*g, members);
    }
    return _groups.leave_group(group_id, members);
}

// ---- partition lifecycle ----------------------------------------------------

void group_manager::on_elected(int32_t partition, cluster::partition* log) {
    _partitions.runtime().on_elected(partition, log);
}

void group_manager::on_resigned(int32_t partition) {
    _partitions.runtime().on_resigned(partition);
}

error_code group_manager::coordinator_status(const std::string& group_id) const {
    return _partitions.status(group_id);
}

bool group_manager::is_loading(int32_t partition) const {
    return _partitions.runtime().is_loading(partition);
}

bool group_manager::is_loaded(int32_t partition) const {
    return _partitions.runtime().is_loaded(partition);
}

bool group_manager::any_loading() const {
    return _partitions.runtime().any_loading();
}

void group_manager::unload(group_coordinator_shard& part) {
    _groups.on_unloaded(part);
    _consumers.on_unloaded(part);
    part.groups.clear();
}

void group_manager::finish_load(group_coordinator_shard& part, offsets_loader& loader) {
    // Consumer groups first: they take their offsets from the loader.
    _consumers.on_loaded(part, loader.take_consumer_groups());
    const size_t offsets = _groups.on_loaded(part, loader.finish(_wall_clock()));
    _offsets.on_loaded(part, loader.pending_transactions());
    // An empty partition (most of them, on a fresh broker) is not news.
    logging::groups().log(
        loader.records_read() > 0 ? spdlog::level::info : spdlog::level::debug,
        "event=offsets_partition_loaded partition={} groups={} offsets={} records={}",
        part.partition(), part.groups.size(), offsets, loader.records_read());
}

void group_manager::when_appends_replicated(const std::string& group_id,
                                            std::function<void(error_code)> done) {
    _partitions.when_replicated(group_id, std::move(done));
}

// ---- DeleteGroups -------------------------------------------------------------

error_code group_manager::delete_group(const std::string& group_id) {
    if (auto err = _groups.validate_delete_group(group_id); err != error_code::none) {
        return err;
    }
    auto group = _groups.find_any_group(group_id);
    const auto offsets = _offsets.delete_all_offsets(*group);
    _groups.remove_group(group_id);
    _partitions.write_tombstones(group_id, offsets, group->type());
    logging::groups().info("event=group_deleted group={} offsets={}", group_id, offsets.size());
    return error_code::none;
}

}  // namespace samsa::coordinator
