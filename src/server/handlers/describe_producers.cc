#include "server/handlers/describe_producers.h"

#include "server/authorization.h"

#include "common/error.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_producers_request;
using protocol::describe_producers_response;
using partition_response = describe_producers_response::topic_response::partition_response;

struct item {
    size_t shard = 0;
    storage::topic_partition tp;
    size_t topic_index = 0;
    size_t partition_index = 0;
    partition_response result;
};

asio::awaitable<describe_producers_response> handle(request_context& ctx,
                                                    describe_producers_request& req) {
    auto image = ctx.broker->metadata.read();
    auto& rm = *ctx.broker->replicas;
    describe_producers_response resp;
    std::vector<item> items;
    for (const auto& t : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = t.name;
        const auto* topic = image->topic(t.name);
        const bool allowed =
            authorized(ctx, acl::operation::read, acl::resource_type::topic, t.name);
        for (int32_t index : t.partition_indexes) {
            auto& pr = tr.partitions.emplace_back();
            pr.partition_index = index;
            if (!allowed) {
                pr.error_code = to_wire(error_code::topic_authorization_failed);
                continue;
            }
            if (!topic || index < 0 || size_t(index) >= topic->partitions.size()) {
                pr.error_code = to_wire(error_code::unknown_topic_or_partition);
                continue;
            }
            item it;
            it.shard = rm.shard_of(topic->id, index);
            it.tp = {t.name, index};
            it.topic_index = resp.topics.size() - 1;
            it.partition_index = tr.partitions.size() - 1;
            it.result.partition_index = index;
            items.push_back(std::move(it));
        }
    }
    auto on_shard = [](cluster::partition* p, item& it) {
        // Any replica with the log answers, followers too (Kafka's
        // Partition.activeProducerState): find-hanging asks each broker
        // about the replicas it hosts.
        if (!p) {
            it.result.error_code = to_wire(error_code::not_leader_or_follower);
            return;
        }
        for (const auto& [id, e] : p->log()->producer_state().producers()) {
            auto& ps = it.result.active_producers.emplace_back();
            ps.producer_id = producer_id{id};
            ps.producer_epoch = e.producer_epoch;
            ps.last_sequence = e.last_seq();
            ps.last_timestamp = e.last_timestamp;
            ps.coordinator_epoch = e.coordinator_epoch;
            ps.current_txn_start_offset = e.current_txn_first_offset.value_or(-1);
        }
    };
    co_await dispatch_to_shards(rm, items, on_shard);
    for (auto& it : items) {
        resp.topics[it.topic_index].partitions[it.partition_index] = std::move(it.result);
    }
    co_return resp;
}

}  // namespace

api_handler describe_producers_handler() {
    return {describe_producers_request::api_key, 0, describe_producers_request::max_version,
            &typed_handler<describe_producers_request, describe_producers_response, &handle>};
}

}  // namespace samsa::server::handlers
