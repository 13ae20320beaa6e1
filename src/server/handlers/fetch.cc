#include "server/handlers/fetch.h"
#include "server/handlers/current_leader.h"

#include <algorithm>
#include <map>

#include "cluster/fetch_waiters.h"
#include "cluster/replica_manager.h"
#include "common/client_quotas.h"
#include "common/clock.h"
#include "common/config/topic_config.h"
#include "common/metrics/thread_stats.h"
#include "metadata/config_view.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "server/authorization.h"
#include "server/fetch/fetch_plan.h"
#include "server/quota/client_throttle.h"
#include "server/quota/request_quota.h"
#include "server/reactor_pool.h"

namespace samsa::server::handlers {

namespace {

using protocol::fetch_request;
using protocol::fetch_response;
using partition_data = fetch_response::fetchable_topic_response::partition_data;
using server::fetch::fetch_plan;
using server::fetch::fetch_target;

struct read_budget {
    int64_t bytes_left = 0;
    int64_t bytes_read = 0;
};

// Reads every resolved target, one hop per shard, within `max_bytes` overall
// and each partition's own limit. The first batch found is returned whole
// even when larger than the limits (KIP-74), so a consumer always progresses.
// `replica_id` >= 0: a follower fetching (reads up to the log end, records
// its position); the partitions whose high watermark that moved go to `moved`.
// `consumer_may_use_follower` as replica id: a consumer whose Fetch version
// lets a follower serve it (KIP-392, v11+).
constexpr node_id consumer_may_use_follower{-1000};
asio::awaitable<int64_t> read_targets(cluster::replica_manager& rm,
                                      std::vector<fetch_target>& targets,
                                      std::vector<cluster::fetch_outcome>& out, int32_t max_bytes,
                                      cluster::isolation_level isolation, node_id replica_id,
                                      std::vector<storage::topic_partition>& moved) {
    out.assign(targets.size(), {});
    std::map<size_t, std::vector<size_t>> by_shard;
    for (size_t i = 0; i < targets.size(); ++i) {
        if (targets[i].error == error_code::none) {
            by_shard[targets[i].shard].push_back(i);
        } else {
            out[i].error = targets[i].error;
        }
    }
    read_budget budget{std::max<int64_t>(0, max_bytes), 0};
    for (auto& [shard, indexes] : by_shard) {
        auto read_shard = [&rm, shard = shard, &indexes = indexes, &targets, &out, budget,
                           isolation, replica_id, &moved]() mutable {
            const int64_t now = wall_clock_ms();
            for (size_t i : indexes) {
                const auto& t = targets[i];
                cluster::partition* p = rm.get(shard, {t.key.topic, t.key.partition});
                if (!p) {
                    out[i].error = error_code::not_leader_or_follower;
                    continue;
                }
                int64_t limit =
                    std::min<int64_t>(std::max(0, t.partition_max_bytes), budget.bytes_left);
                bool min_one = budget.bytes_read == 0;
                if (replica_id.is_valid()) {
                    const int64_t hw = p->high_watermark();
                    // KIP-73 (Kafka's shouldLeaderThrottle): a catching-up
                    // follower of a throttled replica gets no records while the
                    // leader's throttle is exceeded; its fetch still tells
                    // where it stands. An in-sync follower is never held back.
                    if (p->leader_throttled() && !p->in_isr(replica_id) &&
                        rm.leader_quota().is_exceeded(now)) {
                        limit = 0;
                        min_one = false;
                    }
                    out[i] = p->read_for_follower(replica_id, kafka_offset{t.fetch_offset},
                                                  std::max<int64_t>(0, limit), min_one,
                                                  leader_epoch{t.current_leader_epoch},
                                                  leader_epoch{t.last_fetched_epoch}, now);
                    if (p->high_watermark() > hw) {
                        moved.push_back(p->tp());
                    }
                    int64_t n = out[i].records.length;
                    if (p->leader_throttled()) {
                        // What throttled partitions send counts, in sync or not.
                        rm.leader_quota().record(n, now);
                    }
                    budget.bytes_read += n;
                    budget.bytes_left = std::max<int64_t>(0, budget.bytes_left - n);
                    continue;
                }
                if (limit <= 0 && !min_one) {
                    // Still report the partition's offsets, without records.
                    out[i] = p->read(kafka_offset{t.fetch_offset}, 0, isolation, false,
                                     leader_epoch{t.current_leader_epoch},
                                     replica_id == consumer_may_use_follower);
                    continue;
                }
                out[i] = p->read(kafka_offset{t.fetch_offset}, limit, isolation, min_one,
                                 leader_epoch{t.current_leader_epoch},
                                 replica_id == consumer_may_use_follower);
                int64_t n = out[i].records.length;
                budget.bytes_read += n;
                budget.bytes_left = std::max<int64_t>(0, budget.bytes_left - n);
            }
            return budget;
        };
        budget = co_await rm.run_on_shard<read_budget>(shard, read_shard);
    }
    co_return budget.bytes_read;
}

// KIP-227: an incremental response carries a partition only when something
// changed for the client: records, an error, or a new high watermark, last
// stable offset or log start offset. What is sent is remembered in the session.
bool must_respond(const fetch_target& t, const cluster::fetch_outcome& o, bool incremental) {
    auto* sp = t.in_session;
    bool changed = !incremental || o.error.code != error_code::none || o.records.length > 0 ||
                   o.diverging_epoch.has_value();
    if (sp) {
        changed |= sp->high_watermark != o.high_watermark ||
                   sp->last_stable_offset != o.last_stable_offset ||
                   sp->log_start_offset != o.log_start_offset;
        if (changed) {
            sp->high_watermark = o.high_watermark;
            sp->last_stable_offset = o.last_stable_offset;
            sp->log_start_offset = o.log_start_offset;
        }
    }
    return changed;
}

// Kafka's RackAwareReplicaSelector, on the leader: an in-sync replica on a
// live broker in the consumer's rack; -1 (stay with the leader) when the
// leader is in that rack, or no replica is.
node_id preferred_read_replica(const metadata::metadata_image& image, const fetch_target& t,
                               const std::string& rack, node_id local_node) {
    const auto* topic = image.topic(t.topic_id);
    if (!topic) {
        topic = image.topic(t.key.topic);
    }
    if (!topic || t.key.partition < 0 || size_t(t.key.partition) >= topic->partitions.size()) {
        return no_node;
    }
    const auto& reg = topic->partitions[size_t(t.key.partition)];
    if (reg.leader != local_node) {
        return no_node;
    }
    auto rack_of = [&](node_id id) -> std::optional<std::string> {
        auto b = image.brokers.find(id);
        if (b == image.brokers.end() || b->second.fenced) {
            return std::nullopt;
        }
        return b->second.rack;
    };
    if (rack_of(local_node) == rack) {
        return no_node;
    }
    for (node_id r : reg.isr) {
        if (r != local_node && rack_of(r) == rack) {
            return r;
        }
    }
    return no_node;
}

// Whether to answer at once rather than wait for more bytes: an error, or a
// follower that must truncate first (its diverging epoch).
bool answer_now(const std::vector<cluster::fetch_outcome>& results) {
    for (const auto& o : results) {
        if (o.error.code != error_code::none || o.diverging_epoch) {
            return true;
        }
    }
    return false;
}

void fill_partition(partition_data& pd, const fetch_target& t, const cluster::fetch_outcome& o,
                    cluster::isolation_level isolation) {
    pd.partition_index = t.key.partition;
    pd.error_code = to_wire(o.error.code);
    pd.high_watermark = o.high_watermark;
    pd.last_stable_offset = o.last_stable_offset;
    pd.log_start_offset = o.log_start_offset;
    if (o.diverging_epoch) {
        pd.diverging_epoch.epoch = o.diverging_epoch->epoch.value();
        pd.diverging_epoch.end_offset = o.diverging_epoch->end_offset.value();
    }
    if (isolation == cluster::isolation_level::read_uncommitted) {
        pd.aborted_transactions = std::nullopt;
    } else {
        for (const auto& t : o.aborted_transactions) {
            auto& a = pd.aborted_transactions->emplace_back();
            a.producer_id = producer_id{t.producer_id};
            a.first_offset = t.first_offset;
        }
    }
    if (o.records.length > 0) {
        const auto& file = o.records.file;
        pd.records.append(protocol::file_range{o.records.fd(), uint64_t(o.records.position),
                                               uint32_t(o.records.length), file});
    }
}

// A follower needs CLUSTER_ACTION on the cluster, a consumer READ on each
// topic; a refused partition answers TOPIC_AUTHORIZATION_FAILED and is not read.
void authorize_targets(const request_context& ctx, std::vector<fetch_target>& targets,
                       bool from_follower) {
    if (!authorizer_enabled(ctx)) {
        return;
    }
    const bool follower_allowed =
        from_follower && authorized_on_cluster(ctx, acl::operation::cluster_action);
    const std::string* last = nullptr;
    bool allowed = false;
    for (auto& t : targets) {
        if (t.key.topic.empty()) {
            continue;  // an unknown topic id stays UNKNOWN_TOPIC_ID
        }
        if (!last || *last != t.key.topic) {
            last = &t.key.topic;
            allowed = from_follower ? follower_allowed
                                    : authorized(ctx, acl::operation::read,
                                                 acl::resource_type::topic, t.key.topic);
        }
        if (!allowed) {
            t.error = error_code::topic_authorization_failed;
        }
    }
}

// zstd came with Fetch v10 (KIP-110): an older consumer of a topic whose
// compression.type is zstd gets UNSUPPORTED_COMPRESSION_TYPE for its
// partitions, as Kafka answers, not batches it cannot decompress.
void refuse_zstd_topics(const request_context& ctx, const metadata::metadata_image& image,
                        std::vector<fetch_target>& targets) {
    const config::config_set broker = metadata::effective_broker_config(
        ctx.broker->config->values, image, ctx.broker->settings.node_id);
    std::map<std::string, bool> zstd;  // by topic
    for (auto& t : targets) {
        if (t.key.topic.empty() || t.error != error_code::none) {
            continue;
        }
        auto [it, fresh] = zstd.try_emplace(t.key.topic, false);
        if (fresh) {
            auto resolved =
                config::resolve_topic_config(image.topic_overrides(t.key.topic), broker);
            it->second = resolved && resolved->config.compression_type == "zstd";
        }
        if (it->second) {
            t.error = error_code::unsupported_compression_type;
        }
    }
}

// A throttled consumer's answer (Kafka's FetchContext.getThrottledResponse):
// no partitions; an incremental fetch keeps its session, and a full fetch's
// new session is dropped, the client opening another when it fetches again.
fetch_response throttled_response(fetch_plan& plan, server::fetch::fetch_session_cache& sessions,
                                  int32_t throttle_ms) {
    fetch_response resp;
    resp.throttle_time_ms = throttle_ms;
    if (plan.incremental) {
        resp.session_id = plan.response_session_id;
    } else if (plan.session) {
        sessions.remove(plan.session->id());
    }
    return resp;
}

// Kafka's BrokerTopicMetrics of a fetch answered (on the handler's reactor):
// a consumer's partitions count as fetch requests, the records sent as bytes
// out, and a read that failed for anything but where it was sent (as Kafka's
// ReplicaManager.readFromLocalLog tells them apart) as a failure; what
// followers get counts as replication bytes out.
void count_fetch(const std::vector<fetch_target>& targets,
                 const std::vector<cluster::fetch_outcome>& results, bool consumer) {
    if (!metrics::enabled()) {
        return;
    }
    auto& stats = metrics::local();
    for (size_t i = 0; i < targets.size() && i < results.size(); ++i) {
        const auto& r = results[i];
        const uint64_t bytes = uint64_t(std::max<int64_t>(0, r.records.length));
        if (!consumer) {
            stats.replication_bytes_out.add(bytes);
            continue;
        }
        auto& topic = stats.topic(targets[i].key.topic);
        topic.total_fetch_requests.add(1);
        stats.all_topics.total_fetch_requests.add(1);
        topic.bytes_out.add(bytes);
        stats.all_topics.bytes_out.add(bytes);
        switch (r.error.code) {
            case error_code::none:
            case error_code::unknown_topic_or_partition:
            case error_code::not_leader_or_follower:
            case error_code::unknown_leader_epoch:
            case error_code::fenced_leader_epoch:
            case error_code::replica_not_available:
            case error_code::kafka_storage_error:
            case error_code::offset_out_of_range:
            case error_code::inconsistent_topic_id:
            case error_code::topic_authorization_failed:
                break;
            default:
                topic.failed_fetch_requests.add(1);
                stats.all_topics.failed_fetch_requests.add(1);
        }
    }
}

asio::awaitable<handler_result> handle(request_context& ctx) {
    const int16_t version = ctx.header.api_version;
    fetch_request req;
    protocol::reader r(ctx.body);
    req.decode(r, version);
    if (!r.ok()) {
        co_return handler_result::close("request body failed to decode");
    }
    auto& rm = *ctx.broker->replicas;
    auto image = ctx.broker->metadata.read();
    const int64_t now = wall_clock_ms();
    fetch_plan plan = server::fetch::make_fetch_plan(
        req, version, *image, *ctx.broker->fetch_sessions, now,
        [&rm](const uuid& id, int32_t p) { return rm.shard_of(id, p); });

    fetch_response resp;
    handler_result out;
    if (plan.error != error_code::none) {
        resp.error_code = to_wire(plan.error);
        count_response_errors(resp, version);
        resp.encode(out.body, version);
        co_return out;
    }
    resp.session_id = plan.response_session_id;

    const auto isolation = version >= 4 && req.isolation_level == 1
                               ? cluster::isolation_level::read_committed
                               : cluster::isolation_level::read_uncommitted;
    int32_t max_bytes = version >= 3 ? req.max_bytes : INT32_MAX;
    // Followers name themselves (v15+ in ReplicaState); consumers send -1.
    node_id replica_id = version >= 15 ? req.replica_state.replica_id : req.replica_id;
    // consumer_byte_rate: a consumer's fetch carries at most what its quota
    // allows over the window, as Kafka caps it; followers have no client quota.
    const bool consumer = !replica_id.is_valid();
    if (consumer) {
        if (auto most =
                server::quota::client_quota_window(ctx, *image, samsa::quota::consumer_byte_rate)) {
            max_bytes = int32_t(std::min<int64_t>(max_bytes, *most));
        }
    }
    std::vector<cluster::fetch_outcome> results;
    // The ticket is taken before the first read so that an append landing
    // while the read is in flight still wakes the wait below.
    auto& waiters = *ctx.broker->fetch_waiters;
    auto* home = reactor_pool::current();
    auto ticket = home ? waiters.begin(*home) : cluster::fetch_waiters::ticket{SIZE_MAX, 0};
    authorize_targets(ctx, plan.targets, replica_id.is_valid());
    if (consumer && version < 10) {
        refuse_zstd_topics(ctx, *image, plan.targets);
    }
    if (!replica_id.is_valid() && version >= 11) {
        replica_id = consumer_may_use_follower;
    }
    std::vector<storage::topic_partition> moved;
    int64_t bytes =
        co_await read_targets(rm, plan.targets, results, max_bytes, isolation, replica_id, moved);
    // A follower's fetch that advanced a high watermark makes records visible
    // to consumers (and completes acks=all produces): wake their waits.
    for (const auto& tp : moved) {
        waiters.notify(tp);
    }
    // Long poll (min_bytes / max_wait_ms): wait for an append to any of the
    // partitions, read again, until enough bytes, an error, or the deadline.
    // A fetch of no partitions (an empty request, or a session with nothing
    // in it) has nothing to wait for and is answered at once, as Kafka's
    // ReplicaManager does; waiting on no partitions would spin the reactor.
    const int64_t deadline = now + std::max(0, req.max_wait_ms);
    const int32_t min_bytes = std::min(req.min_bytes, max_bytes);
    while (bytes < min_bytes && !plan.targets.empty() && !answer_now(results)) {
        int64_t left = deadline - wall_clock_ms();
        if (left <= 0) {
            break;
        }
        std::vector<storage::topic_partition> keys;
        for (const auto& t : plan.targets) {
            keys.push_back({t.key.topic, t.key.partition});
        }
        co_await waiters.wait(ticket, std::move(keys), left);
        moved.clear();
        bytes = co_await read_targets(rm, plan.targets, results, max_bytes, isolation, replica_id,
                                      moved);
        for (const auto& tp : moved) {
            waiters.notify(tp);
        }
    }
    waiters.end(ticket);

    // KIP-392: a consumer in a rack is pointed to an in-sync replica there.
    std::vector<node_id> preferred(plan.targets.size(), no_node);
    if (replica_id == consumer_may_use_follower && !req.rack_id.empty() && ctx.broker->config &&
        ctx.broker->config->rack_aware_replica_selector) {
        for (size_t i = 0; i < plan.targets.size(); ++i) {
            preferred[i] = preferred_read_replica(*image, plan.targets[i], req.rack_id,
                                                  node_id{ctx.broker->settings.node_id});
            if (preferred[i].is_valid()) {
                results[i].records = {};
            }
        }
    }
    fetch_response::fetchable_topic_response* topic = nullptr;
    for (size_t i = 0; i < plan.targets.size(); ++i) {
        const auto& t = plan.targets[i];
        if (!must_respond(t, results[i], plan.incremental)) {
            continue;
        }
        if (!topic || topic->topic != t.key.topic || topic->topic_id != t.topic_id) {
            topic = &resp.responses.emplace_back();
            topic->topic = t.key.topic;
            topic->topic_id = t.topic_id;
        }
        auto& pd = topic->partitions.emplace_back();
        fill_partition(pd, t, results[i], isolation);
        if (version >= 16 && (results[i].error.code == error_code::not_leader_or_follower ||
                              results[i].error.code == error_code::fenced_leader_epoch)) {
            // KIP-951: where to go instead, without a metadata round trip.
            auto leader = current_leader_of(*image, t.key.topic, t.key.partition);
            if (leader.id == node_id{ctx.broker->settings.node_id}) {
                // This broker, which just refused to lead: its image is
                // behind (cluster/leadership_lease.h). Naming no leader sends
                // the client to refresh its metadata.
                leader = {};
            }
            pd.current_leader.leader_id = leader.id;
            pd.current_leader.leader_epoch = leader.epoch;
            add_leader_endpoint(resp.node_endpoints, *image, leader.id, ctx.listener_name);
        }
        if (preferred[i].is_valid()) {
            pd.preferred_read_replica = preferred[i];
        }
    }
    resp.encode(out.body, version);
    // The response's bytes count against the consumer's quota. One that went
    // over it gets, as from Kafka's KafkaApis, an empty response carrying
    // throttle_time_ms instead, and the bytes it did not get are taken back
    // off its rate: it fetches the same offsets again once it has waited.
    // A consumer over its request_percentage quota gets the same (Kafka
    // takes the larger of the two throttles); followers are exempt.
    const double size = double(out.body.size());
    const int32_t bandwidth_throttle =
        consumer ? server::quota::record_client_quota(ctx, *image, samsa::quota::consumer_byte_rate,
                                                      size)
                 : 0;
    const int32_t throttle =
        std::max(bandwidth_throttle, consumer ? server::quota::record_request_time(ctx) : 0);
    if (throttle > 0) {
        server::quota::record_client_quota(ctx, *image, samsa::quota::consumer_byte_rate, -size);
        out.body = {};
        const auto throttled = throttled_response(plan, *ctx.broker->fetch_sessions, throttle);
        count_response_errors(throttled, version);
        throttled.encode(out.body, version);
    }
    if (throttle == 0) {
        count_response_errors(resp, version);
        count_fetch(plan.targets, results, consumer);
    }
    out.throttle_ms = throttle;
    out.client_backs_off = server::quota::client_backs_off(fetch_request::api_key, version);
    co_return out;
}

}  // namespace

api_handler fetch_handler() {
    return {fetch_request::api_key, 0, fetch_request::max_version, &handle};
}

}  // namespace samsa::server::handlers
