#pragma once
// What the producer-state verbs of `samsa transactions` share
// (transactions_producers.cc: describe-producers and abort;
// transactions_hanging.cc: find-hanging): their options, the cluster as
// librdkafka's metadata shows it, and raw calls to its brokers.
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "net/blocking_call.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "tools/kafka_client.h"

namespace samsa::tools::txn_producers {

using producer_state =
    protocol::describe_producers_response::topic_response::partition_response::producer_state;

inline constexpr size_t max_batch = 500;  // partitions per DescribeProducers, as Kafka's tool

struct producer_options {
    std::shared_ptr<const client_options> client;
    std::string topic;
    std::optional<int32_t> partition;
    std::optional<int32_t> broker_id;
    int32_t max_timeout_min = 15;
    std::optional<int64_t> start_offset;
    std::optional<int64_t> producer_id;
    std::optional<int16_t> producer_epoch;
    std::optional<int32_t> coordinator_epoch;
};

struct topic_partition {
    std::string topic;
    int32_t partition = 0;
    auto operator<=>(const topic_partition&) const = default;
    std::string name() const { return topic + "-" + std::to_string(partition); }
};

inline std::string wire_error(int16_t code) {
    return std::string(error_name(error_code(code)));
}

inline std::string describe(const samsa::error& e) {
    return e.message.empty() ? std::string(error_name(e.code)) : e.message;
}

// The cluster as librdkafka's metadata shows it, and raw calls to its brokers.
class cluster {
  public:
    cluster(const client_options& opts, kafka_client& client) : _opts(&opts), _client(&client) {}

    result<void> refresh() {
        auto md = _client->metadata();
        if (!md) {
            return md.err();
        }
        _md = std::move(*md);
        return {};
    }

    const cluster_metadata& metadata() const { return _md; }

    const broker_info* broker(int32_t id) const {
        for (const auto& b : _md.brokers) {
            if (b.id == id) {
                return &b;
            }
        }
        return nullptr;
    }

    // The partition's leader, or the error Kafka's lookup would end with.
    result<const broker_info*> leader(const topic_partition& tp) const {
        const topic_info* t = _md.find(tp.topic);
        if (t == nullptr || t->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
            return error_code::unknown_topic_or_partition;
        }
        for (const auto& p : t->partitions) {
            if (p.id == tp.partition) {
                const broker_info* b = p.leader >= 0 ? broker(p.leader) : nullptr;
                if (b == nullptr) {
                    return error_code::leader_not_available;
                }
                return b;
            }
        }
        return error_code::unknown_topic_or_partition;
    }

    template <typename Response, typename Request>
    result<Response> call(const broker_info& b, const Request& req, int16_t version) const {
        auto to = target_at(*_opts, b.host, b.port, "samsa-transactions");
        if (!to) {
            return to.err();
        }
        return net::call_blocking<Response>(*to, req, version);
    }

  private:
    const client_options* _opts;
    kafka_client* _client;
    cluster_metadata _md;
};

struct partition_producers {
    int16_t error = 0;
    std::vector<producer_state> producers;
};

// DescribeProducers (key 61, v0) for `parts` on broker `b`, up to 500 partitions a
// request. Partitions the answer leaves out get UNKNOWN_SERVER_ERROR.
result<void> describe_producers(const cluster& c, const broker_info& b,
                                const std::vector<topic_partition>& parts,
                                std::map<topic_partition, partition_producers>& out);

// A producer state value that may be unset (-1), as kafka-transactions prints it.
std::string optional_value(int64_t v);

int run_find_hanging(const producer_options& o);

}  // namespace samsa::tools::txn_producers
