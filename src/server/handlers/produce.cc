#include "server/handlers/produce.h"
#include "server/handlers/current_leader.h"

#include "server/produce_sequencer.h"

#include <fmt/format.h>
#include <asio/this_coro.hpp>

#include "cluster/fetch_waiters.h"
#include "cluster/replica_manager.h"
#include "common/async_latch.h"
#include "common/client_quotas.h"
#include "common/clock.h"
#include "common/config/broker_config.h"
#include "common/error.h"
#include "common/metrics/thread_stats.h"
#include "coordinator/txn/transaction_coordinator.h"
#include "metadata/metadata_image.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "record/batch_header.h"
#include "server/authorization.h"
#include "server/quota/request_quota.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::produce_request;
using protocol::produce_response;
using partition_response = produce_response::topic_produce_response::partition_produce_response;

// One partition of the request, routed to its shard.
struct produce_item {
    size_t shard = 0;
    storage::topic_partition tp;
    std::span<uint8_t> records;
    partition_response* out = nullptr;  // stable: the response vectors are reserved
    cluster::produce_outcome result;
    size_t index = 0;  // in `items`
    // KIP-890: the first transactional write of a producer to this partition,
    // checked with its coordinator before the append.
    bool verify = false;
    int16_t producer_epoch = -1;
    cluster::txn_verification verification;
};

// How a partition leader answers a transactional write whose verification
// failed (Kafka's AddPartitionsToTxnManager): the coordinator's transient
// states become NOT_ENOUGH_REPLICAS, which every producer retries.
error_code verification_error(error_code ec) {
    switch (ec) {
        case error_code::coordinator_not_available:
        case error_code::not_coordinator:
        case error_code::coordinator_load_in_progress:
        case error_code::concurrent_transactions:
        case error_code::network_exception:
        case error_code::request_timed_out:
            return error_code::not_enough_replicas;
        case error_code::producer_fenced:
            return error_code::invalid_producer_epoch;
        default:
            return ec;
    }
}

// transaction.partition.verification.enable: a dynamic key (cluster-wide
// or per broker, AlterConfigs), else the static config.
bool verification_enabled(const request_context& ctx, const metadata::metadata_image& image) {
    constexpr const char* key = "transaction.partition.verification.enable";
    for (const auto& resource : {std::to_string(ctx.broker->settings.node_id), std::string()}) {
        auto it = image.broker_configs.find(resource);
        if (it == image.broker_configs.end()) {
            continue;
        }
        if (auto v = it->second.find(key); v != it->second.end()) {
            return v->second == "true";
        }
    }
    return ctx.broker->config && ctx.broker->config->transaction_partition_verification_enable;
}

// Verifies every item that needs it, each partition on its own (a partition
// the transaction holds is not refused for one it does not), and fails those
// refused. Only a producer's first write to a partition in a transaction
// gets here.
asio::awaitable<void> verify_transactional_items(request_context& ctx, const std::string& txn_id,
                                                 std::vector<produce_item>& items) {
    for (auto& it : items) {
        if (!it.verify) {
            continue;
        }
        std::vector<storage::topic_partition> partitions{it.tp};
        const error_code ec = co_await ctx.broker->transactions->verify_partitions(
            txn_id, producer_id{it.verification.producer_id}, it.producer_epoch, partitions);
        if (ec != error_code::none) {
            it.result.error =
                error(verification_error(ec), std::string("transaction verification failed: ") +
                                                  std::string(error_name(ec)));
        }
    }
}

// acks=all: what each partition's wait for the high watermark ended with. Shared
// with the partitions' callbacks, which may fire after the request timed out.
struct replication_wait {
    explicit replication_wait(asio::any_io_executor ex, size_t n)
        : latch(std::make_shared<async_latch>(std::move(ex))),
          codes(n, error_code::none),
          done(n, false) {}
    std::shared_ptr<async_latch> latch;
    std::vector<error_code> codes;
    std::vector<bool> done;
};

void fill(partition_response& out, const cluster::produce_outcome& r) {
    out.error_code = to_wire(r.error.code);
    if (!r.error.message.empty()) {
        out.error_message = r.error.message;
    }
    out.base_offset = r.base_offset;
    out.log_append_time_ms = r.log_append_time_ms;
    out.log_start_offset = r.log_start_offset;
    for (const auto& e : r.record_errors) {
        auto& re = out.record_errors.emplace_back();
        re.batch_index = e.batch_index;
        re.batch_index_error_message = e.message;
    }
}

// Kafka's BrokerTopicMetrics of an append, on the partition's shard: every
// append tried counts a produce request, an appended one its bytes and
// records, and one refused for what it carried (not for where it was sent,
// as Kafka's ReplicaManager.appendToLocalLog tells them apart) a failure.
void count_append(const produce_item& it) {
    if (!metrics::enabled()) {
        return;
    }
    auto& stats = metrics::local();
    auto& topic = stats.topic(it.tp.topic);
    topic.total_produce_requests.add(1);
    stats.all_topics.total_produce_requests.add(1);
    switch (it.result.error.code) {
        case error_code::none: {
            const uint64_t records = uint64_t(it.result.last_offset - it.result.base_offset + 1);
            topic.bytes_in.add(it.records.size());
            topic.messages_in.add(records);
            stats.all_topics.bytes_in.add(it.records.size());
            stats.all_topics.messages_in.add(records);
            return;
        }
        case error_code::unknown_topic_or_partition:
        case error_code::not_leader_or_follower:
        case error_code::message_too_large:
        case error_code::record_list_too_large:
        case error_code::corrupt_message:
        case error_code::kafka_storage_error:
            return;
        default:
            topic.failed_produce_requests.add(1);
            stats.all_topics.failed_produce_requests.add(1);
    }
}

void set_error(partition_response& out, error_code ec) {
    out.error_code = to_wire(ec);
    out.base_offset = -1;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
    const int16_t version = ctx.header.api_version;
    produce_request req;
    protocol::reader r(ctx.body);
    req.decode(r, version);
    if (!r.ok()) {
        co_return handler_result::close("request body failed to decode");
    }

    produce_response resp;
    auto image = ctx.broker->metadata.read();
    auto& replicas = *ctx.broker->replicas;
    const bool valid_acks = req.acks == -1 || req.acks == 0 || req.acks == 1;
    bool any_error = false;

    // A transactional producer needs WRITE on its transactional id, and every
    // producer WRITE on each topic (KIP-11); refused partitions are not written.
    const bool txn_denied =
        req.transactional_id &&
        !authorized(ctx, acl::operation::write, acl::resource_type::transactional_id,
                    *req.transactional_id);
    std::vector<produce_item> items;
    resp.responses.reserve(req.topic_data.size());
    for (auto& td : req.topic_data) {
        auto& tr = resp.responses.emplace_back();
        tr.name = td.name;
        tr.partition_responses.reserve(td.partition_data.size());
        const metadata::topic_image* topic = image->topic(td.name);
        const bool topic_denied = !txn_denied && !authorized(ctx, acl::operation::write,
                                                             acl::resource_type::topic, td.name);
        for (auto& pd : td.partition_data) {
            auto& pr = tr.partition_responses.emplace_back();
            pr.index = pd.index;
            if (txn_denied) {
                set_error(pr, error_code::transactional_id_authorization_failed);
            } else if (topic_denied) {
                set_error(pr, error_code::topic_authorization_failed);
            } else if (!valid_acks) {
                set_error(pr, error_code::invalid_required_acks);
            } else if (!topic || pd.index < 0 || size_t(pd.index) >= topic->partitions.size()) {
                set_error(pr, error_code::unknown_topic_or_partition);
            } else if (metadata::is_internal_topic(td.name)) {
                // Only the coordinators write to internal topics.
                set_error(pr, error_code::invalid_topic_exception);
            } else {
                auto view = pd.records.contiguous();
                // Records are stamped in place: the frame belongs to this request.
                std::span<uint8_t> span(const_cast<uint8_t*>(view.data()), view.size());
                items.push_back({replicas.shard_of(topic->id, pd.index),
                                 {td.name, pd.index},
                                 span,
                                 &pr,
                                 {},
                                 items.size(),
                                 false,
                                 -1,
                                 {}});
                continue;
            }
            any_error = true;
        }
    }

    const int16_t acks = req.acks;
    const int64_t now = wall_clock_ms();
    auto* waiters = ctx.broker->fetch_waiters;
    // Topics with flush.messages=1 acknowledge once the append is on disk; the
    // log's group commit covers every append that arrived during one fdatasync.
    // (GCC 12 destroys temporaries of a co_await operand twice: every
    // callable and value handed to a co_await'ed call is a named local.)
    auto executor = co_await asio::this_coro::executor;
    auto durable = std::make_shared<async_latch>(executor);
    size_t need_durable = 0;
    auto replicated = std::make_shared<replication_wait>(executor, items.size());
    size_t need_replicated = 0;
    const bool verifying =
        req.transactional_id && ctx.broker->transactions && verification_enabled(ctx, *image);
    if (verifying) {
        auto check = [](cluster::partition* p, produce_item& it) {
            if (!p || it.records.size() < record::batch_header_size ||
                it.records[16] != record::current_magic) {
                return;
            }
            const auto h = record::decode_batch_header(it.records.data());
            if (!h.is_transactional() || !h.has_producer_id()) {
                return;
            }
            if (auto guard = p->txn_verification_needed(producer_id{h.producer_id},
                                                        producer_epoch{h.producer_epoch})) {
                it.verify = true;
                it.producer_epoch = h.producer_epoch;
                it.verification = {h.producer_id, *guard};
            }
        };
        co_await dispatch_to_shards(replicas, items, check);
        co_await verify_transactional_items(ctx, *req.transactional_id, items);
    }
    auto append = [version, acks, now, waiters, durable, &need_durable, replicated,
                   &need_replicated, verifying](cluster::partition* p, produce_item& it) {
        if (it.result.error.code != error_code::none) {
            return;  // refused by verification
        }
        if (!p) {
            it.result.error = error_code::not_leader_or_follower;
            return;
        }
        it.result = p->append_records(it.records, version, acks, now,
                                      verifying ? &it.verification : nullptr);
        count_append(it);
        if (it.result.error.code != error_code::none) {
            return;
        }
        if (waiters) {
            waiters->notify(it.tp);
        }
        if (acks != 0 && p->log()->config().flush_messages == 1) {
            ++need_durable;
            p->log()->when_durable(it.result.last_offset, [durable, &it](status st) {
                if (!st) {
                    it.result.error = st.err();
                }
                durable->count_down();
            });
        }
        if (acks == -1) {
            // Complete once the high watermark passes the batch: every ISR
            // member has it (docs/architecture.md, "Produce" and "Replication").
            ++need_replicated;
            const size_t i = it.index;
            p->when_replicated(kafka_offset{it.result.last_offset + 1},
                               [replicated, i](error_code ec) {
                                   auto& w = *replicated;
                                   // On the partition's shard; the latch hops to the handler's.
                                   asio::post(w.latch->executor(), [replicated, i, ec] {
                                       replicated->codes[i] = ec;
                                       replicated->done[i] = true;
                                   });
                                   w.latch->count_down();
                               });
        }
    };
    // A connection's Produce requests overlap, but append in the order they
    // came (server/produce_sequencer.h); the waits below overlap again.
    if (ctx.produce_order) {
        co_await ctx.produce_order->wait_turn(ctx.produce_ticket);
    }
    co_await dispatch_to_shards(replicas, items, append);
    if (ctx.produce_order) {
        ctx.produce_order->done(ctx.produce_ticket);
    }
    if (need_durable > 0) {
        durable->add(need_durable);
        co_await durable->wait();
    }
    if (need_replicated > 0) {
        replicated->latch->add(need_replicated);
        const auto timeout = std::chrono::milliseconds(std::max(0, req.timeout_ms));
        co_await replicated->latch->wait_for(timeout);
        for (auto& it : items) {
            if (it.result.error.code != error_code::none) {
                continue;
            }
            if (!replicated->done[it.index]) {
                // Kafka answers REQUEST_TIMED_OUT for a partition whose ISR did
                // not replicate the batch within the request's timeout.
                it.result.error = error_code::request_timed_out;
            } else if (replicated->codes[it.index] != error_code::none) {
                it.result.error = replicated->codes[it.index];
            }
        }
    }
    std::string first_error;  // for the log line of an acks=0 close
    for (auto& it : items) {
        fill(*it.out, it.result);
        if (version >= 10 && it.result.error.code == error_code::not_leader_or_follower) {
            // KIP-951: where to go instead, without a metadata round trip.
            const auto leader = current_leader_of(*image, it.tp.topic, it.tp.partition);
            it.out->current_leader.leader_id = leader.id;
            it.out->current_leader.leader_epoch = leader.epoch;
            add_leader_endpoint(resp.node_endpoints, *image, leader.id, ctx.listener_name);
        }
        if (it.result.error.code != error_code::none && first_error.empty()) {
            first_error = fmt::format("{}: {} {}", it.tp.to_string(),
                                      error_name(it.result.error.code), it.result.error.message);
        }
        any_error |= it.result.error.code != error_code::none;
    }

    // producer_byte_rate: the request counts once appended, and a client
    // over its quota is told to wait (and its connection waits).
    const int32_t throttle = server::quota::record_client_quota(
        ctx, *image, samsa::quota::producer_byte_rate, double(ctx.request_size));
    if (acks == 0) {
        // No response; on an error Kafka closes the connection so that the
        // producer notices and refreshes its metadata.
        if (any_error) {
            co_return handler_result::close("acks=0 produce failed (" + first_error + ")");
        }
        auto none = handler_result::no_response();
        none.throttle_ms = throttle;
        co_return none;
    }
    // request_percentage too, except for acks=0 (Kafka exempts it); the
    // larger throttle is the one waited out.
    handler_result out;
    resp.throttle_time_ms = throttle;
    apply_throttle(ctx, resp, out);
    count_response_errors(resp, version);
    resp.encode(out.body, version);
    co_return out;
}

}  // namespace

api_handler produce_handler() {
    return {produce_request::api_key, 0, produce_request::max_version, &handle};
}

}  // namespace samsa::server::handlers
