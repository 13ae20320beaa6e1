#include "server/handlers/offset_for_leader_epoch.h"

#include "server/authorization.h"

#include "common/error.h"
#include "protocol/generated/offset_for_leader_epoch_request.h"
#include "protocol/generated/offset_for_leader_epoch_response.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::offset_for_leader_epoch_request;
using protocol::offset_for_leader_epoch_response;

struct item {
    size_t shard = 0;
    storage::topic_partition tp;
    int32_t current_leader_epoch = -1;
    int32_t leader_epoch = 0;
    size_t topic_index = 0;
    size_t partition_index = 0;
    cluster::epoch_end_offset_outcome result;
};

asio::awaitable<offset_for_leader_epoch_response> handle(request_context& ctx,
                                                         offset_for_leader_epoch_request& req) {
    const int16_t version = ctx.header.api_version;
    auto image = ctx.broker->metadata.read();
    auto& rm = *ctx.broker->replicas;
    offset_for_leader_epoch_response resp;
    std::vector<item> items;
    // A follower (v3+ names itself) needs CLUSTER_ACTION, a client DESCRIBE
    // on each topic.
    const bool from_follower = version >= 3 && req.replica_id.is_valid();
    const bool follower_allowed =
        from_follower && authorized_on_cluster(ctx, acl::operation::cluster_action);
    for (const auto& t : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.topic = t.topic;
        const auto* topic = image->topic(t.topic);
        const bool allowed = from_follower ? follower_allowed
                                           : authorized(ctx, acl::operation::describe,
                                                        acl::resource_type::topic, t.topic);
        for (const auto& p : t.partitions) {
            auto& pr = tr.partitions.emplace_back();
            pr.partition = p.partition;
            if (!allowed) {
                pr.error_code = to_wire(error_code::topic_authorization_failed);
                continue;
            }
            if (!topic || p.partition < 0 || size_t(p.partition) >= topic->partitions.size()) {
                pr.error_code = to_wire(error_code::unknown_topic_or_partition);
                continue;
            }
            items.push_back({rm.shard_of(topic->id, p.partition),
                             {t.topic, p.partition},
                             version >= 2 ? p.current_leader_epoch : -1,
                             p.leader_epoch,
                             resp.topics.size() - 1,
                             tr.partitions.size() - 1,
                             {}});
        }
    }
    auto on_shard = [](cluster::partition* p, item& it) {
        if (!p) {
            it.result.error = error_code::not_leader_or_follower;
            return;
        }
        it.result = p->end_offset_for_epoch(leader_epoch{it.current_leader_epoch},
                                            leader_epoch{it.leader_epoch});
    };
    co_await dispatch_to_shards(rm, items, on_shard);
    for (const auto& it : items) {
        auto& pr = resp.topics[it.topic_index].partitions[it.partition_index];
        pr.error_code = to_wire(it.result.error);
        pr.leader_epoch = it.result.leader_epoch;
        pr.end_offset = it.result.end_offset;
    }
    co_return resp;
}

}  // namespace

api_handler offset_for_leader_epoch_handler() {
    return {
        offset_for_leader_epoch_request::api_key, 0, offset_for_leader_epoch_request::max_version,
        &typed_handler<offset_for_leader_epoch_request, offset_for_leader_epoch_response, &handle>};
}

}  // namespace samsa::server::handlers
