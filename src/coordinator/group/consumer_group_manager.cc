// consumer_group_manager: finding and creating consumer groups, the target
// assignment, members' timers, loading and unloading, ConsumerGroupDescribe.
// The heartbeat itself is in consumer_group_heartbeat.cc.
#include "coordinator/group/consumer_group_manager.h"

#include <spdlog/spdlog.h>

#include <asio/post.hpp>

#include "common/logging/loggers.h"
#include "coordinator/group/classic_group.h"
#include "coordinator/group/consumer_group_assignor.h"
#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/offsets_record_serde.h"

namespace samsa::coordinator {

consumer_group_manager::consumer_group_manager(const group_config& config,
                                               cluster::purgatory_driver& driver,
                                               clock_fn wall_clock, group_partitions& partitions,
                                               group_metadata_manager& classic)
    : _config(config),
      _driver(driver),
      _wall_clock(std::move(wall_clock)),
      _partitions(partitions),
      _classic(classic) {}

std::shared_ptr<consumer_group> consumer_group_manager::group(const std::string& group_id) const {
    auto* part = _partitions.any(group_id);
    if (!part) {
        return nullptr;
    }
    auto it = part->groups.find(group_id);
    if (it == part->groups.end() || it->second->type() != group_type::consumer) {
        return nullptr;
    }
    return std::static_pointer_cast<consumer_group>(it->second);
}

result<std::shared_ptr<consumer_group>> consumer_group_manager::group_for_heartbeat(
    const std::string& group_id, bool create, const metadata::metadata_image& image,
    std::vector<coordinator_record>& out) {
    auto* part = _partitions.serving(group_id);
    if (!part) {
        return error(_partitions.status(group_id));
    }
    auto& slot = part->groups[group_id];
    if (slot && slot->type() == group_type::consumer && !slot->is_dead()) {
        return std::static_pointer_cast<consumer_group>(slot);
    }
    if (!create) {
        if (!slot) {
            part->groups.erase(group_id);
        }
        return error(error_code::unknown_member_id, "Consumer group " + group_id + " not found.");
    }
    if (slot && slot->type() == group_type::classic) {
        // An empty classic group (offsets only, or all members gone)
        // becomes a consumer group, offsets kept; one with members is
        // upgraded online, its members kept.
        if (!slot->is_empty()) {
            return upgrade(slot, image, out);
        }
        auto g = std::make_shared<consumer_group>(group_id);
        for (const auto& [tp, om] : slot->offsets().all()) {
            g->offsets().put(tp, om);
        }
        slot->mark_dead(_wall_clock());
        out.push_back({encode_group_metadata_key(group_id), std::nullopt});
        logging::groups().info("event=group_converted group={} from=classic to=consumer", group_id);
        slot = g;
        return g;
    }
    auto g = std::make_shared<consumer_group>(group_id);
    slot = g;
    return g;
}

error_code consumer_group_manager::compute_target(consumer_group& g,
                                                  std::vector<coordinator_record>& out) {
    std::string name = _config.consumer_assignors.front();
    if (auto preferred = g.preferred_server_assignor()) {
        name = *preferred;
    }
    auto assignor = make_assignor(name);
    if (!assignor) {
        return error_code::unsupported_assignor;
    }
    assignment_spec spec;
    for (const auto& [topic, meta] : g.metadata()) {
        spec.partitions[meta.id] = meta.partitions;
    }
    for (const auto& [id, m] : g.members()) {
        auto& sm = spec.members[id];
        sm.topics = g.subscribed_topic_ids(m);
        sm.current = g.target_of(id);
        sm.heartbeat_due_ms = m.heartbeat_due_ms;
    }
    group_assignment next = assignor->assign(spec);
    for (auto& [id, target] : next) {
        if (target != g.target_of(id)) {
            out.push_back(consumer_group_target_member_record(g.group_id(), id, target));
            g.set_target(id, std::move(target));
        }
    }
    g.set_assignment_epoch(g.group_epoch());
    out.push_back(consumer_group_target_epoch_record(g.group_id(), g.assignment_epoch()));
    logging::groups().info("event=target_assignment group={} epoch={} assignor={} members={}",
                           g.group_id(), g.assignment_epoch(), name, g.size());
    return error_code::none;
}

void consumer_group_manager::remove_member(consumer_group& g, const std::string& member_id,
                                           std::vector<coordinator_record>& out) {
    for (auto& r : consumer_group_member_tombstones(g.group_id(), member_id)) {
        out.push_back(std::move(r));
    }
    g.remove_member(member_id);
    // The others' targets change: the next heartbeat recomputes them.
    g.set_group_epoch(g.group_epoch() + 1);
    out.push_back(consumer_group_epoch_record(g.group_id(), g.group_epoch()));
}

void consumer_group_manager::fence_member(const std::string& group_id, const std::string& member_id,
                                          const char* reason) {
    auto g = group(group_id);
    if (!g || g->is_dead() || !_partitions.serving(group_id) || !g->get(member_id)) {
        return;
    }
    if (maybe_downgrade(*g, member_id)) {
        logging::groups().info(
            "event=member_fenced group={} member={} reason=\"{}\" downgraded=true", group_id,
            member_id, reason);
        return;
    }
    std::vector<coordinator_record> records;
    remove_member(*g, member_id, records);
    logging::groups().info("event=member_fenced group={} member={} reason=\"{}\" group_epoch={}",
                           group_id, member_id, reason, g->group_epoch());
    (void)append(group_id, std::move(records));
}

config::group_config_values consumer_group_manager::default_configs() const {
    return {_config.consumer_session_timeout_ms, _config.consumer_heartbeat_interval_ms};
}

config::group_config_values consumer_group_manager::configs_of(const consumer_group& g) const {
    return g.configs.value_or(default_configs());
}

std::unique_ptr<callback_task> consumer_group_manager::fencing_timer(const consumer_group& g,
                                                                     const consumer_group_member& m,
                                                                     const char* reason) {
    // The fencing runs posted, never from inside the timer task the member
    // owns (removing the member destroys it).
    return std::make_unique<callback_task>([this, gid = g.group_id(), mid = m.member_id, reason] {
        asio::post(_driver.executor(),
                   [this, gid, mid, reason] { fence_member(gid, mid, reason); });
    });
}

void consumer_group_manager::schedule_session(consumer_group& g, consumer_group_member& m) {
    if (!m.session_timer) {
        m.session_timer = fencing_timer(g, m, "session timeout");
    }
    m.session_timer->cancel();
    // A classic member keeps the session its JoinGroup asked for.
    _driver.schedule(*m.session_timer, m.classic ? m.classic->session_timeout_ms
                                                 : configs_of(g).consumer_session_timeout_ms);
}

void consumer_group_manager::schedule_rebalance_timeout(consumer_group& g,
                                                        consumer_group_member& m) {
    // A classic member revokes by rejoining: its join and sync timeouts
    // bound that instead (Kafka's).
    if (m.state != member_state::unrevoked_partitions || m.uses_classic_protocol()) {
        if (m.rebalance_timer) {
            m.rebalance_timer->cancel();
        }
        return;
    }
    if (m.rebalance_timer && m.rebalance_timer->scheduled()) {
        return;  // counting since it entered the state
    }
    const int32_t epoch = m.member_epoch;
    m.rebalance_timer = std::make_unique<callback_task>([this, gid = g.group_id(),
                                                         mid = m.member_id, epoch] {
        asio::post(_driver.executor(), [this, gid, mid, epoch] {
            auto g = group(gid);
            const consumer_group_member* m = g ? g->get(mid) : nullptr;
            // Still revoking what it had at that epoch: it is stuck.
            if (m && m->state == member_state::unrevoked_partitions && m->member_epoch == epoch) {
                fence_member(gid, mid, "rebalance timeout");
            }
        });
    });
    _driver.schedule(*m.rebalance_timer, m.rebalance_timeout_ms > 0
                                             ? m.rebalance_timeout_ms
                                             : configs_of(g).consumer_session_timeout_ms);
}

void consumer_group_manager::schedule_join_timeout(consumer_group& g, consumer_group_member& m) {
    if (m.join_timer && m.join_timer->scheduled()) {
        return;
    }
    if (!m.join_timer) {
        m.join_timer =
            fencing_timer(g, m, "the classic member did not rejoin within its rebalance timeout");
    }
    _driver.schedule(*m.join_timer, m.rebalance_timeout_ms);
}

void consumer_group_manager::schedule_sync_timeout(consumer_group& g, consumer_group_member& m) {
    if (!m.sync_timer) {
        m.sync_timer =
            fencing_timer(g, m, "the classic member did not sync within its rebalance timeout");
    }
    m.sync_timer->cancel();
    _driver.schedule(*m.sync_timer, m.rebalance_timeout_ms);
}

error_code consumer_group_manager::append(const std::string& group_id,
                                          std::vector<coordinator_record> records) {
    if (records.empty()) {
        return error_code::none;
    }
    return coordinator_append_error(_partitions.append(group_id, std::move(records)),
                                    error_code::request_timed_out,
                                    error_code::unknown_server_error);
}

// ---- partition lifecycle -------------------------------------------------------

void consumer_group_manager::on_loaded(group_coordinator_shard& part,
                                       std::vector<std::unique_ptr<consumer_group>> groups) {
    for (auto& loaded : groups) {
        std::shared_ptr<consumer_group> g(std::move(loaded));
        g->metadata_established = false;
        part.groups[g->group_id()] = g;
        // Members keep their place if they heartbeat within their session.
        std::vector<std::string> ids;
        for (const auto& [id, m] : g->members()) {
            ids.push_back(id);
        }
        for (const auto& id : ids) {
            auto* m = g->get(id);
            schedule_session(*g, *m);
            schedule_rebalance_timeout(*g, *m);
        }
    }
}

void consumer_group_manager::on_unloaded(group_coordinator_shard& part) {
    for (auto& [id, g] : part.groups) {
        if (g->type() != group_type::consumer) {
            continue;
        }
        auto& cg = static_cast<consumer_group&>(*g);
        cg.drop_timers();
        cg.mark_dead(_wall_clock());
    }
}

// ---- ConsumerGroupDescribe -------------------------------------------------------

described_consumer_group consumer_group_manager::describe(const std::string& group_id) const {
    described_consumer_group out;
    out.group_id = group_id;
    if (auto status = _partitions.status(group_id); status != error_code::none) {
        out.error = status;
        return out;
    }
    auto* part = _partitions.serving(group_id);
    auto it = part->groups.find(group_id);
    if (it == part->groups.end() || it->second->is_dead()) {
        out.error = error_code::group_id_not_found;
        out.error_message = "Group " + group_id + " not found.";
        return out;
    }
    if (it->second->type() != group_type::consumer) {
        out.error = error_code::group_id_not_found;
        out.error_message = "Group " + group_id + " is not a consumer group.";
        return out;
    }
    const auto& g = static_cast<const consumer_group&>(*it->second);
    out.group_state = g.state_name();
    out.group_epoch = g.group_epoch();
    out.assignment_epoch = g.assignment_epoch();
    out.assignor_name = g.preferred_server_assignor().value_or(_config.consumer_assignors.front());
    for (const auto& [id, m] : g.members()) {
        auto& dm = out.members.emplace_back();
        dm.member_id = id;
        dm.instance_id = m.instance_id;
        dm.rack_id = m.rack_id;
        dm.member_epoch = m.member_epoch;
        dm.client_id = m.client_id;
        dm.client_host = m.client_host;
        dm.subscribed_topic_names = m.subscribed_topic_names;
        dm.subscribed_topic_regex = m.subscribed_topic_regex;
        dm.assignment = m.assigned;
        dm.target_assignment = g.target_of(id);
    }
    return out;
}

}  // namespace samsa::coordinator
