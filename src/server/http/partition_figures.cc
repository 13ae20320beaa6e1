#include "server/http/partition_figures.h"

#include <asio/post.hpp>

#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include "cluster/partition.h"
#include "cluster/replica_manager.h"
#include "metadata/metadata_image.h"
#include "storage/log.h"
#include "storage/log_manager.h"

namespace samsa::server::http {

figures_by_partition gather_partition_figures(cluster::replica_manager& replicas,
                                              const metadata::metadata_image& image,
                                              std::chrono::milliseconds patience) {
    // Which logs exist comes from the log manager (any thread); what they
    // hold from their shards.
    std::vector<std::vector<storage::topic_partition>> by_shard(replicas.shard_count());
    replicas.logs().for_each_log([&](const std::shared_ptr<storage::log>& l) {
        const auto& tp = l->partition();
        if (const auto* topic = image.topic(tp.topic)) {
            by_shard[replicas.shard_of(topic->id, tp.partition)].push_back(tp);
        }
    });
    // Shared with the shard's task, which may outlive this call when late.
    struct answer {
        std::vector<std::pair<storage::topic_partition, partition_figures>> figures;
        std::promise<void> done;
    };
    std::vector<std::pair<std::shared_ptr<answer>, std::future<void>>> pending;
    for (size_t s = 0; s < by_shard.size(); ++s) {
        if (by_shard[s].empty()) {
            continue;
        }
        auto a = std::make_shared<answer>();
        auto f = a->done.get_future();
        asio::post(replicas.shard_context(s), [a, s, &replicas, tps = std::move(by_shard[s])] {
            for (const auto& tp : tps) {
                if (auto* p = replicas.get(s, tp)) {
                    const auto& log = *p->log();
                    a->figures.push_back(
                        {tp,
                         {log.size_bytes(), log.log_start_offset(), log.log_end_offset(),
                          p->high_watermark(), p->is_leader(), int64_t(p->replication_waiters())}});
                }
            }
            a->done.set_value();
        });
        pending.emplace_back(std::move(a), std::move(f));
    }
    figures_by_partition out;
    const auto deadline = std::chrono::steady_clock::now() + patience;
    for (auto& [a, f] : pending) {
        if (f.wait_until(deadline) != std::future_status::ready) {
            continue;
        }
        for (auto& [tp, figures] : a->figures) {
            out.emplace(tp, figures);
        }
    }
    return out;
}

}  // namespace samsa::server::http
