#include "server/http/group_figures.h"

#include <asio/co_spawn.hpp>
#include <asio/use_future.hpp>

#include <future>

#include "cluster/replica_manager.h"
#include "coordinator/group/group_coordinator.h"
#include "server/broker_context.h"

namespace samsa::server::http {

namespace {

// On a reactor. (GCC 12: no co_await inside a branch.)
asio::awaitable<std::vector<group_figures>> ask_groups(coordinator::group_coordinator* groups) {
    bool loading = false;
    coordinator::list_groups_filter filter;
    auto listed = co_await groups->list_groups(filter, loading);
    std::vector<group_figures> out;
    for (const auto& g : listed) {
        const std::optional<std::vector<storage::topic_partition>> all;
        auto fetched = co_await groups->fetch_offsets(g.group_id, all, false);
        auto& f = out.emplace_back();
        f.group_id = g.group_id;
        f.protocol_type = g.protocol_type;
        f.state = g.group_state;
        for (const auto& p : fetched.partitions) {
            if (p.error == error_code::none && p.offset >= 0) {
                f.offsets.push_back({p.tp, p.offset, std::nullopt});
            }
        }
    }
    co_return out;
}

}  // namespace

std::vector<group_figures> gather_group_figures(const broker_context& broker,
                                                const figures_by_partition& logs,
                                                std::chrono::milliseconds patience) {
    if (!broker.groups || !broker.replicas || broker.replicas->shard_count() == 0) {
        return {};
    }
    auto* groups = broker.groups;
    std::future<std::vector<group_figures>> answer = asio::co_spawn(
        broker.replicas->shard_context(0), [groups] { return ask_groups(groups); },
        asio::use_future);
    if (answer.wait_for(patience) != std::future_status::ready) {
        return {};
    }
    std::vector<group_figures> out;
    try {
        out = answer.get();
    } catch (const std::exception&) {
        return {};  // a group partition moved meanwhile: the next scrape asks again
    }
    for (auto& g : out) {
        for (auto& o : g.offsets) {
            if (auto it = logs.find(o.tp); it != logs.end() && it->second.leader) {
                o.lag = std::max<int64_t>(0, it->second.high_watermark - o.committed);
            }
        }
    }
    return out;
}

}  // namespace samsa::server::http
