#include "coordinator/txn/txn_marker_channel.h"

#include <spdlog/spdlog.h>

#include <asio/steady_timer.hpp>

#include "common/error.h"
#include "common/logging/loggers.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"
#include "protocol/message_codec.h"

namespace samsa::coordinator::txn {

namespace {

// v1 is the flexible version every Kafka broker since 2.8 serves.
constexpr int16_t write_txn_markers_version = 1;

}  // namespace

struct txn_marker_channel::job {
    txn_marker marker;
    std::function<void()> done;
    std::set<storage::topic_partition> remaining;
    size_t outstanding = 0;  // requests of the current round
    int attempts = 0;
};

txn_marker_channel::txn_marker_channel(asio::any_io_executor ex,
                                       const metadata::metadata_cache& metadata,
                                       std::string listener_name, int32_t local_node_id,
                                       std::chrono::milliseconds request_timeout,
                                       std::shared_ptr<const security::client_security> security,
                                       std::chrono::milliseconds retry_backoff)
    : _ex(std::move(ex)),
      _metadata(metadata),
      _listener(std::move(listener_name)),
      _local_node_id(local_node_id),
      _request_timeout(request_timeout),
      _security(std::move(security)),
      _retry_backoff(retry_backoff) {}

txn_marker_channel::~txn_marker_channel() {
    for (auto& [id, c] : _clients) {
        c->close();
    }
}

std::shared_ptr<net::kafka_rpc_client> txn_marker_channel::client_for(node_id node,
                                                                      const std::string& host,
                                                                      uint16_t port) {
    auto it = _clients.find(node);
    if (it != _clients.end() && it->second->host() == host && it->second->port() == port) {
        return it->second;
    }
    if (it != _clients.end()) {
        it->second->close();
    }
    auto c = net::kafka_rpc_client::create(_ex, host, port,
                                           "samsa-txn-markers-" + std::to_string(_local_node_id),
                                           _request_timeout, _security);
    _clients[node] = c;
    return c;
}

void txn_marker_channel::write(txn_marker marker, std::function<void()> done) {
    auto j = std::make_shared<job>();
    j->remaining = marker.partitions;
    j->marker = std::move(marker);
    j->done = std::move(done);
    ++_jobs;
    attempt(j);
}

void txn_marker_channel::attempt(const std::shared_ptr<job>& j) {
    ++j->attempts;
    auto image = _metadata.read();
    // The partitions of each leader; those of deleted topics need nothing.
    std::map<node_id, std::map<std::string, std::vector<int32_t>>> by_leader;
    bool unresolved = false;
    for (auto it = j->remaining.begin(); it != j->remaining.end();) {
        const auto* topic = image->topic(it->topic);
        if (!topic || it->partition < 0 || size_t(it->partition) >= topic->partitions.size()) {
            it = j->remaining.erase(it);
            continue;
        }
        const node_id leader = topic->partitions[size_t(it->partition)].leader;
        if (!leader.is_valid()) {
            unresolved = true;
        } else {
            by_leader[leader][it->topic].push_back(it->partition);
        }
        ++it;
    }
    if (j->remaining.empty()) {
        --_jobs;
        auto done = std::move(j->done);
        done();
        return;
    }
    j->outstanding = 0;
    std::vector<std::pair<std::shared_ptr<net::kafka_rpc_client>, bytes>> sends;
    for (auto& [leader, topics] : by_leader) {
        auto b = image->brokers.find(leader);
        const auto* ep = b == image->brokers.end() ? nullptr : b->second.endpoint(_listener);
        if (!ep) {
            unresolved = true;
            continue;
        }
        protocol::write_txn_markers_request req;
        auto& m = req.markers.emplace_back();
        m.producer_id = samsa::producer_id{j->marker.producer_id};
        m.producer_epoch = j->marker.producer_epoch;
        m.transaction_result = j->marker.commit;
        m.coordinator_epoch = j->marker.coordinator_epoch;
        for (auto& [name, parts] : topics) {
            auto& t = m.topics.emplace_back();
            t.name = name;
            t.partition_indexes = std::move(parts);
        }
        sends.emplace_back(client_for(leader, ep->host, uint16_t(ep->port)),
                           protocol::encode_message(req, write_txn_markers_version));
    }
    if (sends.empty()) {
        retry_later(j);
        return;
    }
    j->outstanding = sends.size();
    std::weak_ptr<char> alive = _alive;
    for (auto& [client, body] : sends) {
        client->call(
            protocol::write_txn_markers_request::api_key, write_txn_markers_version,
            std::move(body), [this, j, alive](result<net::rpc_answer> answer) {
                if (alive.expired()) {
                    return;
                }
                if (answer) {
                    auto resp = protocol::decode_message<protocol::write_txn_markers_response>(
                        answer->body, write_txn_markers_version);
                    if (resp) {
                        for (const auto& m : resp->markers) {
                            for (const auto& t : m.topics) {
                                for (const auto& p : t.partitions) {
                                    storage::topic_partition tp{t.name, p.partition_index};
                                    const auto ec = error_code(p.error_code);
                                    if (ec == error_code::none) {
                                        j->remaining.erase(tp);
                                    } else if (j->attempts % 50 == 1) {
                                        logging::transactions().warn(
                                            "event=txn_marker_retry producer_id={} partition={} "
                                            "error={}",
                                            j->marker.producer_id, tp.to_string(), error_name(ec));
                                    }
                                }
                            }
                        }
                    }
                }
                if (--j->outstanding == 0) {
                    if (j->remaining.empty()) {
                        attempt(j);  // completes
                    } else {
                        retry_later(j);
                    }
                }
            });
    }
    (void)unresolved;  // retried with the rest once the round's answers are in
}

void txn_marker_channel::retry_later(const std::shared_ptr<job>& j) {
    auto timer = std::make_shared<asio::steady_timer>(_ex, _retry_backoff);
    std::weak_ptr<char> alive = _alive;
    timer->async_wait([this, j, timer, alive](std::error_code ec) {
        if (ec || alive.expired()) {
            return;
        }
        attempt(j);
    });
}

}  // namespace samsa::coordinator::txn
