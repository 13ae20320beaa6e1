#include "coordinator/txn/transaction_coordinator.h"

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>

#include "common/clock.h"
#include "coordinator/common/shard_callback_call.h"
#include "coordinator/txn/producer_id_manager.h"
#include "net/await_callback.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/message_codec.h"

namespace samsa::coordinator::txn {

transaction_coordinator::transaction_coordinator(txn_coordinator_settings settings,
                                                 cluster::replica_manager& replicas,
                                                 const metadata::metadata_cache& metadata,
                                                 producer_id_manager& ids)
    : _settings(std::move(settings)), _replicas(replicas), _metadata(metadata), _ids(ids) {
    for (size_t i = 0; i < replicas.shard_count(); ++i) {
        auto ex = replicas.shard_context(i).get_executor();
        _drivers.push_back(std::make_unique<cluster::purgatory_driver>(ex));
        auto markers = std::make_unique<txn_marker_channel>(
            ex, metadata, _settings.inter_broker_listener, _settings.node_id,
            std::chrono::milliseconds(_settings.request_timeout_ms),
            _settings.inter_broker_security);
        _managers.push_back(std::make_unique<txn_manager>(
            _settings.config, *_drivers.back(), [] { return wall_clock_ms(); },
            std::move(markers)));
        _managers.back()->runtime().set_becoming_leader([this](int32_t p) {
            return _metadata.names_leader(transaction_state_topic, p, _replicas.local_node());
        });
    }
    _replicas.add_leadership_listener(
        [this](size_t shard, const storage::topic_partition& tp, cluster::partition* p,
               bool is_leader) { on_leadership(shard, tp, p, is_leader); });
}

transaction_coordinator::~transaction_coordinator() {
    {
        std::lock_guard lock(_clients_mutex);
        for (auto& [id, c] : _clients) {
            c->close();
        }
    }
    _managers.clear();
    _drivers.clear();
}

std::shared_ptr<net::kafka_rpc_client> transaction_coordinator::client_for(node_id node,
                                                                           const std::string& host,
                                                                           uint16_t port) {
    std::lock_guard lock(_clients_mutex);
    auto it = _clients.find(node);
    if (it != _clients.end() && it->second->host() == host && it->second->port() == port) {
        return it->second;
    }
    auto c = net::kafka_rpc_client::create(_replicas.shard_context(0).get_executor(), host, port,
                                           "samsa-txn-verify-" + std::to_string(_settings.node_id),
                                           std::chrono::milliseconds(_settings.request_timeout_ms),
                                           _settings.inter_broker_security);
    _clients[node] = c;
    return c;
}

asio::awaitable<error_code> transaction_coordinator::verify_partitions(
    const std::string& id, samsa::producer_id producer_id, int16_t epoch,
    const std::vector<storage::topic_partition>& partitions) {
    const error_code local = co_await add_partitions(id, producer_id, epoch, partitions, true);
    if (local != error_code::not_coordinator) {
        co_return local;
    }
    auto image = _metadata.read();
    const auto* topic = image->topic(transaction_state_topic);
    const int32_t p = partition_for(id);
    if (!topic || p < 0 || size_t(p) >= topic->partitions.size()) {
        co_return error_code::coordinator_not_available;
    }
    const node_id leader = topic->partitions[size_t(p)].leader;
    auto b = image->brokers.find(leader);
    const auto* ep =
        b == image->brokers.end() ? nullptr : b->second.endpoint(_settings.inter_broker_listener);
    if (!leader.is_valid() || leader == node_id{_settings.node_id} || !ep) {
        co_return error_code::coordinator_not_available;
    }
    constexpr int16_t version = 4;
    protocol::add_partitions_to_txn_request req;
    auto& t = req.transactions.emplace_back();
    t.transactional_id = id;
    t.producer_id = producer_id;
    t.producer_epoch = epoch;
    t.verify_only = true;
    for (const auto& tp : partitions) {
        if (t.topics.empty() || t.topics.back().name != tp.topic) {
            t.topics.emplace_back().name = tp.topic;
        }
        t.topics.back().partitions.push_back(tp.partition);
    }
    auto client = client_for(leader, ep->host, uint16_t(ep->port));
    auto body = protocol::encode_message(req, version);
    net::kafka_rpc_client* c = client.get();
    auto start = [c, &body](std::function<void(result<net::rpc_answer>)> done) {
        c->call(protocol::add_partitions_to_txn_request::api_key, version, body, std::move(done));
    };
    auto answer = co_await net::await_callback<result<net::rpc_answer>>(start);
    if (!answer) {
        co_return error_code::network_exception;
    }
    auto resp =
        protocol::decode_message<protocol::add_partitions_to_txn_response>(answer->body, version);
    if (!resp) {
        co_return error_code::network_exception;
    }
    if (resp->error_code != 0) {
        co_return error_code(resp->error_code);
    }
    for (const auto& r : resp->results_by_transaction) {
        for (const auto& tr : r.topic_results) {
            for (const auto& pr : tr.results_by_partition) {
                if (pr.partition_error_code != 0) {
                    co_return error_code(pr.partition_error_code);
                }
            }
        }
    }
    co_return error_code::none;
}

std::optional<size_t> transaction_coordinator::shard_for(const std::string& id) const {
    auto image = _metadata.read();
    const auto* topic = image->topic(transaction_state_topic);
    if (!topic) {
        return std::nullopt;
    }
    return _replicas.shard_of(topic->id, partition_for(id));
}

void transaction_coordinator::on_leadership(size_t shard, const storage::topic_partition& tp,
                                            cluster::partition* p, bool is_leader) {
    if (tp.topic != transaction_state_topic || shard >= _managers.size()) {
        return;
    }
    if (is_leader && p) {
        _managers[shard]->on_elected(tp.partition, p);
    } else {
        _managers[shard]->on_resigned(tp.partition);
    }
}

template <typename Resp, typename Fn>
asio::awaitable<Resp> transaction_coordinator::call_with_callback(size_t shard, Fn& fn) {
    co_return co_await coordinator::call_with_callback<Resp>(_replicas.shard_context(shard),
                                                             _managers[shard].get(), fn);
}

asio::awaitable<init_pid_result> transaction_coordinator::init_producer_id(
    const std::string& id, int32_t txn_timeout_ms, samsa::producer_id producer_id, int16_t epoch) {
    // Kafka's TransactionCoordinator checks the timeout before whether it
    // owns the id.
    if (txn_timeout_ms <= 0 || txn_timeout_ms > _settings.config.max_timeout_ms) {
        init_pid_result r;
        r.error = error_code::invalid_transaction_timeout;
        co_return r;
    }
    auto shard = shard_for(id);
    if (!shard) {
        init_pid_result r;
        r.error = error_code::not_coordinator;
        co_return r;
    }
    std::optional<int64_t> fresh;
    for (int round = 0; round < 2; ++round) {
        auto fn = [&](txn_manager& m, std::function<void(init_pid_result)> cb) {
            m.init_producer_id(id, txn_timeout_ms, producer_id.value(), epoch, fresh,
                               std::move(cb));
        };
        auto r = co_await call_with_callback<init_pid_result>(*shard, fn);
        if (!r.needs_producer_id) {
            co_return r;
        }
        // A new id comes from the controller's blocks, off the shard.
        auto next = co_await _ids.next_producer_id();
        if (!next) {
            init_pid_result failed;
            failed.error = next.err().code;
            co_return failed;
        }
        fresh = *next;
    }
    init_pid_result r;
    r.error = error_code::concurrent_transactions;
    co_return r;
}

asio::awaitable<error_code> transaction_coordinator::add_partitions(
    const std::string& id, samsa::producer_id producer_id, int16_t epoch,
    const std::vector<storage::topic_partition>& partitions, bool verify_only) {
    auto shard = shard_for(id);
    if (!shard) {
        co_return error_code::not_coordinator;
    }
    auto fn = [&](txn_manager& m, std::function<void(error_code)> cb) {
        m.add_partitions(id, producer_id.value(), epoch, partitions, verify_only, std::move(cb));
    };
    co_return co_await call_with_callback<error_code>(*shard, fn);
}

asio::awaitable<error_code> transaction_coordinator::end_txn(const std::string& id,
                                                             samsa::producer_id producer_id,
                                                             int16_t epoch, bool commit) {
    auto shard = shard_for(id);
    if (!shard) {
        co_return error_code::not_coordinator;
    }
    auto fn = [&](txn_manager& m, std::function<void(error_code)> cb) {
        m.end_txn(id, producer_id.value(), epoch, commit, std::move(cb));
    };
    co_return co_await call_with_callback<error_code>(*shard, fn);
}

asio::awaitable<std::vector<txn_listing>> transaction_coordinator::list(
    const std::vector<txn_state>& states, const std::vector<samsa::producer_id>& filter,
    bool& loading) {
    std::vector<int64_t> producer_ids;
    for (samsa::producer_id id : filter) {
        producer_ids.push_back(id.value());
    }
    std::vector<txn_listing> out;
    for (size_t i = 0; i < _managers.size(); ++i) {
        txn_manager* m = _managers[i].get();
        auto fn = [m, &states, &producer_ids, &loading] {
            loading |= m->any_loading();
            return m->list(states, producer_ids);
        };
        auto part = co_await _replicas.run_on_shard<std::vector<txn_listing>>(i, fn);
        out.insert(out.end(), part.begin(), part.end());
    }
    co_return out;
}

asio::awaitable<std::pair<error_code, transaction_metadata>> transaction_coordinator::describe(
    const std::string& id) {
    auto shard = shard_for(id);
    if (!shard) {
        co_return std::pair<error_code, transaction_metadata>{error_code::not_coordinator, {}};
    }
    txn_manager* m = _managers[*shard].get();
    auto fn = [m, &id] { return m->describe(id); };
    co_return co_await _replicas.run_on_shard<std::pair<error_code, transaction_metadata>>(*shard,
                                                                                           fn);
}

}  // namespace samsa::coordinator::txn
