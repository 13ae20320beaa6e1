#include "server/handlers/list_offsets.h"

#include "server/authorization.h"

#include <set>

#include "common/error.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::list_offsets_request;
using protocol::list_offsets_response;
using partition_response =
    list_offsets_response::list_offsets_topic_response::list_offsets_partition_response;

struct item {
    size_t shard = 0;
    storage::topic_partition tp;
    int64_t timestamp = 0;
    int32_t current_leader_epoch = -1;
    size_t topic_index = 0;
    size_t partition_index = 0;
    cluster::list_offsets_outcome result;
};

asio::awaitable<list_offsets_response> handle(request_context& ctx, list_offsets_request& req) {
    const int16_t version = ctx.header.api_version;
    auto image = ctx.broker->metadata.read();
    auto& rm = *ctx.broker->replicas;
    const auto isolation = version >= 2 && req.isolation_level == 1
                               ? cluster::isolation_level::read_committed
                               : cluster::isolation_level::read_uncommitted;
    list_offsets_response resp;
    std::vector<item> items;
    std::set<storage::topic_partition> seen, duplicates;
    for (const auto& t : req.topics) {
        for (const auto& p : t.partitions) {
            storage::topic_partition tp{t.name, p.partition_index};
            if (!seen.insert(tp).second) {
                duplicates.insert(tp);
            }
        }
    }
    for (const auto& t : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = t.name;
        const auto* topic = image->topic(t.name);
        const bool allowed =
            authorized(ctx, acl::operation::describe, acl::resource_type::topic, t.name);
        for (const auto& p : t.partitions) {
            auto& pr = tr.partitions.emplace_back();
            pr.partition_index = p.partition_index;
            storage::topic_partition tp{t.name, p.partition_index};
            if (version >= 1 && duplicates.count(tp)) {
                // Kafka refuses a partition named twice in one request.
                pr.error_code = to_wire(error_code::invalid_request);
            } else if (!allowed) {
                pr.error_code = to_wire(error_code::topic_authorization_failed);
            } else if (!topic || p.partition_index < 0 ||
                       size_t(p.partition_index) >= topic->partitions.size()) {
                pr.error_code = to_wire(error_code::unknown_topic_or_partition);
            } else {
                items.push_back({rm.shard_of(topic->id, p.partition_index),
                                 tp,
                                 p.timestamp,
                                 version >= 4 ? p.current_leader_epoch : -1,
                                 resp.topics.size() - 1,
                                 tr.partitions.size() - 1,
                                 {}});
            }
        }
    }
    auto on_shard = [isolation](cluster::partition* p, item& it) {
        if (!p) {
            it.result.error = error_code::not_leader_or_follower;
            return;
        }
        it.result = p->list_offsets(it.timestamp, isolation, leader_epoch{it.current_leader_epoch});
    };
    co_await dispatch_to_shards(rm, items, on_shard);
    for (auto& it : items) {
        auto& pr = resp.topics[it.topic_index].partitions[it.partition_index];
        // OFFSET_NOT_AVAILABLE (a new leader's lagging high watermark) came
        // with v5; older clients retry on LEADER_NOT_AVAILABLE, as Kafka answers them.
        pr.error_code =
            to_wire(version < 5 && it.result.error.code == error_code::offset_not_available
                        ? error_code::leader_not_available
                        : it.result.error.code);
        if (version == 0) {
            if (it.result.offset >= 0) {
                pr.old_style_offsets.push_back(it.result.offset);
            }
            continue;
        }
        pr.timestamp = it.result.timestamp;
        pr.offset = it.result.offset;
        pr.leader_epoch = it.result.leader_epoch;
    }
    co_return resp;
}

}  // namespace

api_handler list_offsets_handler() {
    return {list_offsets_request::api_key, 0, list_offsets_request::max_version,
            &typed_handler<list_offsets_request, list_offsets_response, &handle>};
}

}  // namespace samsa::server::handlers
