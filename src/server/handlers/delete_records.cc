#include "server/handlers/delete_records.h"

#include "server/authorization.h"

#include "common/clock.h"
#include "common/error.h"
#include "protocol/generated/delete_records_request.h"
#include "protocol/generated/delete_records_response.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::delete_records_request;
using protocol::delete_records_response;
using partition_result =
    delete_records_response::delete_records_topic_result::delete_records_partition_result;

struct item {
    size_t shard = 0;
    storage::topic_partition tp;
    int64_t offset = 0;
    size_t topic_index = 0;
    size_t partition_index = 0;
    result<int64_t> low_watermark{error_code::none};
};

asio::awaitable<delete_records_response> handle(request_context& ctx, delete_records_request& req) {
    auto image = ctx.broker->metadata.read();
    auto& rm = *ctx.broker->replicas;
    delete_records_response resp;
    std::vector<item> items;
    for (const auto& t : req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = t.name;
        const auto* topic = image->topic(t.name);
        const bool allowed =
            authorized(ctx, acl::operation::delete_, acl::resource_type::topic, t.name);
        for (const auto& p : t.partitions) {
            auto& pr = tr.partitions.emplace_back();
            pr.partition_index = p.partition_index;
            pr.low_watermark = -1;
            if (!allowed) {
                pr.error_code = to_wire(error_code::topic_authorization_failed);
                continue;
            }
            if (!topic || p.partition_index < 0 ||
                size_t(p.partition_index) >= topic->partitions.size()) {
                pr.error_code = to_wire(error_code::unknown_topic_or_partition);
                continue;
            }
            items.push_back({rm.shard_of(topic->id, p.partition_index),
                             {t.name, p.partition_index},
                             p.offset,
                             resp.topics.size() - 1,
                             tr.partitions.size() - 1,
                             error_code::none});
        }
    }
    const int64_t now = wall_clock_ms();
    auto on_shard = [now](cluster::partition* p, item& it) {
        if (!p) {
            it.low_watermark = error_code::not_leader_or_follower;
            return;
        }
        it.low_watermark = p->delete_records(it.offset, now);
    };
    co_await dispatch_to_shards(rm, items, on_shard);
    for (auto& it : items) {
        auto& pr = resp.topics[it.topic_index].partitions[it.partition_index];
        if (it.low_watermark) {
            pr.low_watermark = *it.low_watermark;
        } else {
            pr.error_code = to_wire(it.low_watermark.code());
        }
    }
    co_return resp;
}

}  // namespace

api_handler delete_records_handler() {
    return {delete_records_request::api_key, 0, delete_records_request::max_version,
            &typed_handler<delete_records_request, delete_records_response, &handle>};
}

}  // namespace samsa::server::handlers
