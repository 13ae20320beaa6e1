#include "server/handlers/describe_log_dirs.h"

#include "server/authorization.h"

#include <sys/statvfs.h>

#include <filesystem>
#include <map>
#include <set>

#include "common/error.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_log_dirs_request;
using protocol::describe_log_dirs_response;

struct item {
    size_t shard = 0;
    storage::topic_partition tp;
    std::string log_dir;
    int64_t size = -1;
    int64_t offset_lag = 0;
    bool future = false;  // a replica moving into log_dir (AlterReplicaLogDirs)
};

std::string canonical(const std::string& p) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(p, ec);
    return ec ? p : c.string();
}

asio::awaitable<describe_log_dirs_response> handle(request_context& ctx,
                                                   describe_log_dirs_request& req) {
    // DESCRIBE on the cluster; v3+ say why nothing is listed.
    if (!authorized_on_cluster(ctx, acl::operation::describe)) {
        describe_log_dirs_response refused;
        refused.error_code = to_wire(error_code::cluster_authorization_failed);
        co_return refused;
    }
    auto image = ctx.broker->metadata.read();
    auto& rm = *ctx.broker->replicas;
    // null topics: every partition.
    std::set<storage::topic_partition> wanted;
    if (req.topics) {
        for (const auto& t : *req.topics) {
            for (int32_t p : t.partitions) {
                wanted.insert({t.topic, p});
            }
        }
    }
    std::vector<item> items;
    auto add = [&](const std::shared_ptr<storage::log>& l, bool future) {
        const auto& tp = l->partition();
        if (req.topics && !wanted.count(tp)) {
            return;
        }
        const auto* topic = image->topic(tp.topic);
        if (!topic) {
            return;
        }
        auto dir = std::filesystem::path(l->dir()).parent_path().string();
        items.push_back({rm.shard_of(topic->id, tp.partition), tp, canonical(dir), -1, 0, future});
    };
    rm.logs().for_each_log([&](const std::shared_ptr<storage::log>& l) { add(l, false); });
    rm.logs().for_each_future([&](const std::shared_ptr<storage::log>& l) { add(l, true); });
    auto on_shard = [&rm](cluster::partition* p, item& it) {
        if (!p) {
            return;
        }
        const auto& current = *p->log();
        if (!it.future) {
            it.size = current.size_bytes();
            // Kafka's lag of a current replica: how far its high watermark
            // is past its log end (none).
            it.offset_lag =
                std::max<int64_t>(0, current.high_watermark() - current.log_end_offset());
            return;
        }
        // A future replica: its size, and how far it is behind the current one.
        if (auto f = rm.logs().get_future(it.tp)) {
            it.size = f->size_bytes();
            it.offset_lag = current.log_end_offset() - f->log_end_offset();
        }
    };
    co_await dispatch_to_shards(rm, items, on_shard);

    describe_log_dirs_response resp;
    std::map<std::string, describe_log_dirs_response::describe_log_dirs_result*> by_dir;
    for (const auto& d : rm.logs().log_dirs()) {
        auto& res = resp.results.emplace_back();
        res.log_dir = canonical(d.path);
        if (d.offline) {
            res.error_code = to_wire(error_code::kafka_storage_error);
            continue;
        }
        struct statvfs vfs {};
        if (::statvfs(d.path.c_str(), &vfs) == 0) {
            res.total_bytes = int64_t(vfs.f_blocks) * int64_t(vfs.f_frsize);
            res.usable_bytes = int64_t(vfs.f_bavail) * int64_t(vfs.f_frsize);
        }
    }
    for (auto& res : resp.results) {
        by_dir[res.log_dir] = &res;
    }
    for (const auto& it : items) {
        if (it.size < 0) {
            continue;
        }
        auto d = by_dir.find(it.log_dir);
        if (d == by_dir.end()) {
            continue;
        }
        auto& topics = d->second->topics;
        auto t = std::find_if(topics.begin(), topics.end(),
                              [&](const auto& x) { return x.name == it.tp.topic; });
        if (t == topics.end()) {
            // emplace, not insert(pos, {}): that is the initializer-list
            // overload, which inserts nothing.
            t = topics.emplace(topics.end());
            t->name = it.tp.topic;
        }
        auto& p = t->partitions.emplace_back();
        p.partition_index = it.tp.partition;
        p.partition_size = it.size;
        p.offset_lag = it.offset_lag;
        p.is_future_key = it.future;
    }
    co_return resp;
}

}  // namespace

api_handler describe_log_dirs_handler() {
    return {describe_log_dirs_request::api_key, 0, describe_log_dirs_request::max_version,
            &typed_handler<describe_log_dirs_request, describe_log_dirs_response, &handle>};
}

}  // namespace samsa::server::handlers
