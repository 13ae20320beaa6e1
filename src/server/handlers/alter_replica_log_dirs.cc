#include "server/handlers/alter_replica_log_dirs.h"

#include <spdlog/spdlog.h>

#include <map>

#include "common/error.h"
#include "common/logging/loggers.h"
#include "protocol/generated/alter_replica_log_dirs_request.h"
#include "protocol/generated/alter_replica_log_dirs_response.h"
#include "server/authorization.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::alter_replica_log_dirs_request;
using protocol::alter_replica_log_dirs_response;

struct item {
    size_t shard = 0;
    storage::topic_partition tp;
    std::string dir;  // as the request names it
    bool dispatched = false;
    std::string local_dir;  // the configured dir it resolved to
    status outcome;
};

// Kafka's ReplicaManager.alterReplicaLogDirs, in its order: the name's
// length, the dir, then the replica (the dir is remembered even when the
// replica is not here yet).
void check(request_context& ctx, const metadata::metadata_image& image, item& it) {
    auto& rm = *ctx.broker->replicas;
    if (!storage::future_dir_name(it.tp, std::string(32, '0'))) {
        it.outcome = error{error_code::invalid_topic_exception, "The topic name is too long."};
        return;
    }
    auto dir = rm.logs().online_log_dir(it.dir);
    if (!dir) {
        it.outcome = dir.err();
        return;
    }
    it.local_dir = *dir;
    const auto* topic = image.topic(it.tp.topic);
    if (!topic || it.tp.partition < 0 || size_t(it.tp.partition) >= topic->partitions.size()) {
        rm.logs().set_preferred_dir(it.tp, it.local_dir);
        it.outcome = error{error_code::unknown_topic_or_partition, it.tp.to_string()};
        return;
    }
    it.shard = rm.shard_of(topic->id, it.tp.partition);
    it.dispatched = true;
}

asio::awaitable<alter_replica_log_dirs_response> handle(request_context& ctx,
                                                        alter_replica_log_dirs_request& req) {
    auto image = ctx.broker->metadata.read();
    auto& rm = *ctx.broker->replicas;
    const bool allowed = authorized_on_cluster(ctx, acl::operation::alter);
    // One entry per partition, the last dir named winning (Kafka's map).
    std::vector<item> items;
    std::map<storage::topic_partition, size_t> index;
    for (const auto& d : req.dirs) {
        for (const auto& t : d.topics) {
            for (int32_t p : t.partitions) {
                storage::topic_partition tp{t.name, p};
                auto [at, added] = index.emplace(tp, items.size());
                if (added) {
                    items.push_back({0, tp, d.path, false, {}, {}});
                } else {
                    items[at->second].dir = d.path;
                }
            }
        }
    }
    for (auto& it : items) {
        if (!allowed) {
            it.outcome = error{error_code::cluster_authorization_failed, ""};
        } else {
            check(ctx, *image, it);
        }
    }
    std::vector<item> work;
    for (auto& it : items) {
        if (it.dispatched) {
            work.push_back(it);
        }
    }
    auto on_shard = [&rm](cluster::partition* p, item& it) {
        if (!p) {
            // Not a replica here (yet): it is created in the dir asked for.
            rm.logs().set_preferred_dir(it.tp, it.local_dir);
            it.outcome = error{error_code::replica_not_available,
                               "the replica of " + it.tp.to_string() + " is not on this broker"};
            return;
        }
        if (p->log()->failure()) {
            it.outcome = error{error_code::kafka_storage_error,
                               "Partition " + it.tp.to_string() + " is offline"};
            return;
        }
        it.outcome = rm.alter_log_dir(it.shard, it.tp, it.local_dir);
    };
    co_await dispatch_to_shards(rm, work, on_shard);
    for (auto& done : work) {
        items[index.at(done.tp)].outcome = std::move(done.outcome);
    }

    alter_replica_log_dirs_response resp;
    std::map<std::string, size_t> topic_at;
    for (const auto& it : items) {
        auto [at, added] = topic_at.emplace(it.tp.topic, resp.results.size());
        if (added) {
            resp.results.emplace_back().topic_name = it.tp.topic;
        }
        auto& pr = resp.results[at->second].partitions.emplace_back();
        pr.partition_index = it.tp.partition;
        pr.error_code = to_wire(it.outcome ? error_code::none : it.outcome.err().code);
        if (!it.outcome && it.outcome.err().code != error_code::cluster_authorization_failed) {
            logging::requests().warn(
                "event=alter_replica_log_dir_refused partition={} dir={} error={} message=\"{}\"",
                it.tp.to_string(), it.dir, error_name(it.outcome.err().code),
                it.outcome.err().message);
        }
    }
    co_return resp;
}

}  // namespace

api_handler alter_replica_log_dirs_handler() {
    return {
        alter_replica_log_dirs_request::api_key, 0, alter_replica_log_dirs_request::max_version,
        &typed_handler<alter_replica_log_dirs_request, alter_replica_log_dirs_response, &handle>};
}

}  // namespace samsa::server::handlers
