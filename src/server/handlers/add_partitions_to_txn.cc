#include "server/handlers/add_partitions_to_txn.h"

#include <map>
#include <set>

#include "coordinator/txn/transaction_coordinator.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "server/handlers/txn_handler_support.h"

namespace samsa::server::handlers {

namespace {

using protocol::add_partitions_to_txn_request;
using protocol::add_partitions_to_txn_response;
using topic_list = std::vector<add_partitions_to_txn_request::add_partitions_to_txn_topic>;
using topic_results =
    std::vector<add_partitions_to_txn_response::add_partitions_to_txn_topic_result>;

constexpr int16_t max_served_version = 5;
// PRODUCER_FENCED from v2 on (KIP-588).
constexpr int16_t first_fenced_version = 2;

topic_results answer_all(const topic_list& topics,
                         const std::function<error_code(const std::string&, int32_t)>& code_of) {
    topic_results out;
    for (const auto& t : topics) {
        auto& tr = out.emplace_back();
        tr.name = t.name;
        for (int32_t p : t.partitions) {
            auto& pr = tr.results_by_partition.emplace_back();
            pr.partition_index = p;
            pr.partition_error_code = to_wire(code_of(t.name, p));
        }
    }
    return out;
}

asio::awaitable<topic_results> add_one(request_context& ctx, const std::string& id, producer_id pid,
                                       int16_t epoch, bool verify_only, const topic_list& topics) {
    const int16_t version = ctx.header.api_version;
    auto image = ctx.broker->metadata.read();
    auto exists = [&image](const std::string& topic, int32_t p) {
        const auto* t = image->topic(topic);
        return t && p >= 0 && size_t(p) < t->partitions.size();
    };
    // From a producer (v3 and below): WRITE on the transactional id and on
    // each topic; a refused topic fails the rest as not attempted (KIP-11).
    if (version <= 3) {
        if (!may_write_transaction(ctx, id)) {
            co_return answer_all(topics, [](const std::string&, int32_t) {
                return error_code::transactional_id_authorization_failed;
            });
        }
        std::set<std::string> refused;
        for (const auto& t : topics) {
            if (!authorized(ctx, acl::operation::write, acl::resource_type::topic, t.name)) {
                refused.insert(t.name);
            }
        }
        if (!refused.empty()) {
            co_return answer_all(topics, [&refused](const std::string& topic, int32_t) {
                return refused.contains(topic) ? error_code::topic_authorization_failed
                                               : error_code::operation_not_attempted;
            });
        }
    }
    std::vector<storage::topic_partition> partitions;
    bool unknown = false;
    for (const auto& t : topics) {
        for (int32_t p : t.partitions) {
            unknown |= !exists(t.name, p);
            partitions.push_back({t.name, p});
        }
    }
    if (unknown) {
        co_return answer_all(topics, [&exists](const std::string& topic, int32_t p) {
            return exists(topic, p) ? error_code::operation_not_attempted
                                    : error_code::unknown_topic_or_partition;
        });
    }
    auto* txns = ctx.broker->transactions;
    if (!txns) {
        co_return answer_all(topics, [](const std::string&, int32_t) {
            return error_code::coordinator_not_available;
        });
    }
    if (verify_only) {
        // Each partition answers for itself: NONE for those the ongoing
        // transaction holds, INVALID_TXN_STATE for the others (Kafka's
        // handleVerifyPartitionsInTransaction).
        std::map<storage::topic_partition, error_code> codes;
        for (const auto& tp : partitions) {
            std::vector<storage::topic_partition> one{tp};
            codes[tp] =
                txn_error_for_version(co_await txns->add_partitions(id, pid, epoch, one, true),
                                      version, first_fenced_version);
        }
        co_return answer_all(topics, [&codes](const std::string& topic, int32_t p) {
            return codes[storage::topic_partition{topic, p}];
        });
    }
    error_code ec = co_await txns->add_partitions(id, pid, epoch, partitions, false);
    ec = txn_error_for_version(ec, version, first_fenced_version);
    co_return answer_all(topics, [ec](const std::string&, int32_t) { return ec; });
}

asio::awaitable<add_partitions_to_txn_response> handle(request_context& ctx,
                                                       add_partitions_to_txn_request& req) {
    add_partitions_to_txn_response resp;
    if (ctx.header.api_version <= 3) {
        resp.results_by_topic_v3_and_below =
            co_await add_one(ctx, req.v3_and_below_transactional_id, req.v3_and_below_producer_id,
                             req.v3_and_below_producer_epoch, false, req.v3_and_below_topics);
        co_return resp;
    }
    // v4+ batches come from brokers verifying their producers (KIP-890).
    if (!authorized_on_cluster(ctx, acl::operation::cluster_action)) {
        resp.error_code = to_wire(error_code::cluster_authorization_failed);
        co_return resp;
    }
    for (const auto& t : req.transactions) {
        auto& r = resp.results_by_transaction.emplace_back();
        r.transactional_id = t.transactional_id;
        r.topic_results = co_await add_one(ctx, t.transactional_id, t.producer_id, t.producer_epoch,
                                           t.verify_only, t.topics);
    }
    co_return resp;
}

}  // namespace

api_handler add_partitions_to_txn_handler() {
    return {add_partitions_to_txn_request::api_key, 0, max_served_version,
            &typed_handler<add_partitions_to_txn_request, add_partitions_to_txn_response, &handle>};
}

}  // namespace samsa::server::handlers
