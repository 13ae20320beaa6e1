#include "coordinator/group/group_coordinator.h"
#include <asio/this_coro.hpp>
#include "common/async_latch.h"

#include <spdlog/spdlog.h>

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>

#include "common/clock.h"
#include "common/logging/loggers.h"
#include "coordinator/common/shard_callback_call.h"
#include "coordinator/group/group_partitioner.h"

namespace samsa::coordinator {

namespace {

constexpr std::array<const char*, size_t(group_api::count_)> api_names = {
    "find_coordinator",
    "join_group",
    "sync_group",
    "heartbeat",
    "leave_group",
    "offset_commit",
    "offset_fetch",
    "offset_delete",
    "list_groups",
    "describe_groups",
    "delete_groups",
    "consumer_group_heartbeat",
    "consumer_group_describe"};

}  // namespace

group_coordinator::group_coordinator(group_config config, cluster::replica_manager& replicas,
                                     const metadata::metadata_cache& metadata)
    : _config(config), _replicas(replicas), _metadata(metadata) {
    for (size_t i = 0; i < replicas.shard_count(); ++i) {
        _drivers.push_back(
            std::make_unique<cluster::purgatory_driver>(replicas.shard_context(i).get_executor()));
        _managers.push_back(std::make_unique<group_manager>(config, *_drivers.back(),
                                                            [] { return wall_clock_ms(); }));
        _managers.back()->runtime().set_becoming_leader([this](int32_t p) {
            return _metadata.names_leader(offsets_topic, p, _replicas.local_node());
        });
    }
    _replicas.add_leadership_listener(
        [this](size_t shard, const storage::topic_partition& tp, cluster::partition* p,
               bool is_leader) { on_leadership(shard, tp, p, is_leader); });
}

group_coordinator::~group_coordinator() {
    logging::groups().info("event=group_coordinator_stopped requests={} {}", requests_total(),
                           request_counts());
    // Managers (and their purgatories) before the drivers that time them.
    _managers.clear();
    _drivers.clear();
}

int32_t group_coordinator::partition_for(const std::string& group_id) const {
    return offsets_partition_for(group_id, _config.offsets_topic_num_partitions);
}

std::optional<size_t> group_coordinator::shard_for(const std::string& group_id) const {
    auto image = _metadata.read();
    const auto* topic = image->topic(offsets_topic);
    if (!topic) {
        return std::nullopt;
    }
    return _replicas.shard_of(topic->id, partition_for(group_id));
}

void group_coordinator::on_leadership(size_t shard, const storage::topic_partition& tp,
                                      cluster::partition* p, bool is_leader) {
    if (tp.topic != offsets_topic || shard >= _managers.size()) {
        return;
    }
    // Called on the partition's shard (or on the start-up thread before the
    // reactors run): the manager of that shard is ours to touch.
    if (is_leader && p) {
        _managers[shard]->on_elected(tp.partition, p);
    } else {
        _managers[shard]->on_resigned(tp.partition);
    }
}

void group_coordinator::on_metadata_changed(const metadata::metadata_image& prev,
                                            const metadata::metadata_image& next) {
    std::set<std::string> gone;
    for (const auto& [id, topic] : prev.topics_by_id) {
        if (!next.topics_by_id.count(id) && topic->name != offsets_topic) {
            gone.insert(topic->name);
        }
    }
    if (gone.empty()) {
        return;
    }
    for (size_t i = 0; i < _managers.size(); ++i) {
        asio::post(_replicas.shard_context(i),
                   [m = _managers[i].get(), gone] { m->offsets().remove_offsets_of_topics(gone); });
    }
}

template <typename Resp, typename Fn>
asio::awaitable<Resp> group_coordinator::call_with_callback(size_t shard, Fn& fn) {
    co_return co_await coordinator::call_with_callback<Resp>(_replicas.shard_context(shard),
                                                             _managers[shard].get(), fn);
}

asio::awaitable<join_group_result> group_coordinator::join_group(const join_group_params& req,
                                                                 const request_origin& origin) {
    count(group_api::join_group);
    auto shard = shard_for(req.group_id);
    if (!shard) {
        co_return join_error(req.member_id, error_code::not_coordinator);
    }
    auto image = _metadata.read();
    auto fn = [&req, &origin, &image](group_manager& m, join_callback cb) {
        m.join_group(req, origin, *image, std::move(cb));
    };
    co_return co_await call_with_callback<join_group_result>(*shard, fn);
}

asio::awaitable<sync_group_result> group_coordinator::sync_group(const sync_group_params& req,
                                                                 const request_origin& origin) {
    count(group_api::sync_group);
    auto shard = shard_for(req.group_id);
    if (!shard) {
        co_return sync_error(error_code::not_coordinator);
    }
    auto fn = [&req, &origin](group_manager& m, sync_callback cb) {
        m.sync_group(req, origin, std::move(cb));
    };
    co_return co_await call_with_callback<sync_group_result>(*shard, fn);
}

asio::awaitable<error_code> group_coordinator::heartbeat(const heartbeat_params& req) {
    count(group_api::heartbeat);
    auto shard = shard_for(req.group_id);
    if (!shard) {
        co_return error_code::not_coordinator;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &req] { return m->heartbeat(req); };
    co_return co_await _replicas.run_on_shard<error_code>(*shard, fn);
}

asio::awaitable<leave_group_result> group_coordinator::leave_group(
    const std::string& group_id, const std::vector<leaving_member>& members) {
    count(group_api::leave_group);
    auto shard = shard_for(group_id);
    if (!shard) {
        leave_group_result r;
        r.error = error_code::not_coordinator;
        co_return r;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &group_id, &members] { return m->leave_group(group_id, members); };
    co_return co_await _replicas.run_on_shard<leave_group_result>(*shard, fn);
}

asio::awaitable<error_code> group_coordinator::commit_offsets(
    const std::string& group_id, int32_t generation_id, const std::string& member_id,
    const std::optional<std::string>& group_instance_id, std::vector<offset_commit_item>& items,
    int16_t api_version, std::optional<txn_producer> txn) {
    count(group_api::offset_commit);
    auto shard = shard_for(group_id);
    if (!shard) {
        for (auto& it : items) {
            if (it.error == error_code::none) {
                it.error = error_code::not_coordinator;
            }
        }
        co_return error_code::not_coordinator;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &group_id, generation_id, &member_id, &group_instance_id, &items, api_version,
               &txn] {
        return m->offsets().commit_offsets(group_id, generation_id, member_id, group_instance_id,
                                           items, api_version, txn);
    };
    const error_code ec = co_await _replicas.run_on_shard<error_code>(*shard, fn);
    bool appended = false;
    for (const auto& it : items) {
        appended |= it.error == error_code::none;
    }
    if (ec != error_code::none || !appended) {
        co_return ec;
    }
    // Acknowledged once on every ISR replica of the offsets partition, within
    // offsets.commit.timeout.ms; Kafka answers COORDINATOR_NOT_AVAILABLE for
    // a commit that timed out or lost its replicas (the client retries).
    auto latch = std::make_shared<async_latch>(co_await asio::this_coro::executor);
    auto outcome = std::make_shared<error_code>(error_code::none);
    latch->add(1);
    auto wait = [m, &group_id, latch, outcome] {
        m->when_appends_replicated(group_id, [latch, outcome](error_code e) {
            asio::post(latch->executor(), [outcome, e] { *outcome = e; });
            latch->count_down();
        });
        return 0;
    };
    co_await _replicas.run_on_shard<int>(*shard, wait);
    const bool in_time =
        co_await latch->wait_for(std::chrono::milliseconds(_config.offset_commit_timeout_ms));
    if (!in_time || *outcome != error_code::none) {
        const error_code failed = *outcome == error_code::not_leader_or_follower ||
                                          *outcome == error_code::not_coordinator
                                      ? error_code::not_coordinator
                                      : error_code::coordinator_not_available;
        for (auto& it : items) {
            if (it.error == error_code::none) {
                it.error = failed;
            }
        }
    }
    co_return error_code::none;
}

asio::awaitable<void> group_coordinator::complete_txn(int32_t partition, int64_t producer_id,
                                                      bool commit) {
    auto image = _metadata.read();
    const auto* topic = image->topic(offsets_topic);
    if (!topic) {
        co_return;
    }
    const size_t shard = _replicas.shard_of(topic->id, partition);
    group_manager* m = _managers[shard].get();
    auto fn = [m, partition, producer_id, commit] {
        m->offsets().complete_txn(partition, producer_id, commit);
        return 0;
    };
    co_await _replicas.run_on_shard<int>(shard, fn);
}

asio::awaitable<offset_fetch_result> group_coordinator::fetch_offsets(
    const std::string& group_id,
    const std::optional<std::vector<storage::topic_partition>>& partitions, bool require_stable,
    const std::optional<std::string>& member_id, int32_t member_epoch) {
    count(group_api::offset_fetch);
    auto shard = shard_for(group_id);
    if (!shard) {
        offset_fetch_result r;
        r.error = error_code::not_coordinator;
        co_return r;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &group_id, &partitions, require_stable, &member_id, member_epoch] {
        return m->offsets().fetch_offsets(group_id, partitions, require_stable, member_id,
                                          member_epoch);
    };
    co_return co_await _replicas.run_on_shard<offset_fetch_result>(*shard, fn);
}

asio::awaitable<consumer_group_heartbeat_result> group_coordinator::consumer_group_heartbeat(
    const consumer_group_heartbeat_params& req, const request_origin& origin) {
    count(group_api::consumer_group_heartbeat);
    auto shard = shard_for(req.group_id);
    if (!shard) {
        consumer_group_heartbeat_result r;
        r.error = error_code::not_coordinator;
        co_return r;
    }
    group_manager* m = _managers[*shard].get();
    auto image = _metadata.read();
    auto fn = [m, &req, &origin, &image] { return m->consumers().heartbeat(req, origin, *image); };
    co_return co_await _replicas.run_on_shard<consumer_group_heartbeat_result>(*shard, fn);
}

asio::awaitable<described_consumer_group> group_coordinator::consumer_group_describe(
    const std::string& group_id) {
    count(group_api::consumer_group_describe);
    auto shard = shard_for(group_id);
    if (!shard) {
        described_consumer_group r;
        r.group_id = group_id;
        r.error = error_code::not_coordinator;
        co_return r;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &group_id] { return m->consumers().describe(group_id); };
    co_return co_await _replicas.run_on_shard<described_consumer_group>(*shard, fn);
}

asio::awaitable<error_code> group_coordinator::delete_offsets(
    const std::string& group_id, std::vector<offset_delete_item>& items) {
    count(group_api::offset_delete);
    auto shard = shard_for(group_id);
    if (!shard) {
        co_return error_code::not_coordinator;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &group_id, &items] { return m->offsets().delete_offsets(group_id, items); };
    co_return co_await _replicas.run_on_shard<error_code>(*shard, fn);
}

asio::awaitable<std::vector<listed_group>> group_coordinator::list_groups(
    const list_groups_filter& filter, bool& loading) {
    count(group_api::list_groups);
    std::vector<listed_group> all;
    for (size_t shard = 0; shard < _managers.size(); ++shard) {
        group_manager* m = _managers[shard].get();
        auto fn = [m, &filter, &loading] { return m->groups().list_groups(filter, loading); };
        auto part = co_await _replicas.run_on_shard<std::vector<listed_group>>(shard, fn);
        for (auto& g : part) {
            all.push_back(std::move(g));
        }
    }
    co_return all;
}

asio::awaitable<described_group> group_coordinator::describe_group(const std::string& group_id) {
    auto shard = shard_for(group_id);
    if (!shard) {
        described_group g;
        g.group_id = group_id;
        g.error = error_code::not_coordinator;
        co_return g;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &group_id] { return m->groups().describe_group(group_id); };
    co_return co_await _replicas.run_on_shard<described_group>(*shard, fn);
}

asio::awaitable<error_code> group_coordinator::delete_group(const std::string& group_id) {
    auto shard = shard_for(group_id);
    if (!shard) {
        co_return error_code::not_coordinator;
    }
    group_manager* m = _managers[*shard].get();
    auto fn = [m, &group_id] { return m->delete_group(group_id); };
    co_return co_await _replicas.run_on_shard<error_code>(*shard, fn);
}

uint64_t group_coordinator::requests_total() const {
    uint64_t n = 0;
    for (const auto& c : _counts) {
        n += c.load(std::memory_order_relaxed);
    }
    return n;
}

std::string group_coordinator::request_counts() const {
    std::string out;
    for (size_t i = 0; i < _counts.size(); ++i) {
        if (!out.empty()) {
            out += ' ';
        }
        out += api_names[i];
        out += '=';
        out += std::to_string(_counts[i].load(std::memory_order_relaxed));
    }
    return out;
}

}  // namespace samsa::coordinator
