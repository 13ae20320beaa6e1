#include "server/quorum/controller_frontend.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include "net/await_callback.h"
#include "protocol/generated/allocate_producer_ids_request.h"
#include "protocol/generated/allocate_producer_ids_response.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::quorum {

controller_frontend::controller_frontend(const config::broker_config& cfg,
                                         metadata::controller* local, metadata_quorum& quorum,
                                         asio::any_io_executor client_executor,
                                         std::shared_ptr<const security::client_security> security)
    : _cfg(cfg),
      _local(local),
      _quorum(quorum),
      _ex(std::move(client_executor)),
      _security(std::move(security)) {}

controller_frontend::~controller_frontend() {
    std::lock_guard lock(_mutex);
    for (auto& [id, c] : _clients) {
        c->close();
    }
}

void controller_frontend::leader_changed(int32_t leader) {
    std::lock_guard lock(_mutex);
    for (auto& [id, c] : _clients) {
        if (id != leader) {
            c->close();
        }
    }
}

bool controller_frontend::local_is_active() const {
    return _local && _quorum.is_local_leader();
}

std::shared_ptr<net::kafka_rpc_client> controller_frontend::client_for(int32_t node) {
    std::lock_guard lock(_mutex);
    if (auto it = _clients.find(node); it != _clients.end()) {
        return it->second;
    }
    for (const auto& v : _cfg.controller_quorum_voters) {
        if (v.id == node) {
            auto c = net::kafka_rpc_client::create(
                _ex, v.host, v.port, fmt::format("samsa-broker-{}", _cfg.node_id),
                std::chrono::milliseconds(_cfg.request_timeout_ms), _security);
            _clients.emplace(node, c);
            return c;
        }
    }
    return nullptr;
}

asio::awaitable<result<bytes>> controller_frontend::forward(int16_t api_key, int16_t version,
                                                            const bytes& body) {
    const int32_t leader = _quorum.leader().leader.value();
    auto client = leader >= 0 ? client_for(leader) : nullptr;
    if (!client) {
        co_return error(error_code::not_controller, "no active controller is known");
    }
    net::kafka_rpc_client* c = client.get();
    auto start = [c, api_key, version, &body](std::function<void(result<net::rpc_answer>)> done) {
        c->call(api_key, version, body, std::move(done));
    };
    auto answer = co_await net::await_callback<result<net::rpc_answer>>(start);
    if (!answer) {
        co_return error(error_code::not_controller, answer.err().message);
    }
    co_return bytes(answer->body.begin(), answer->body.end());
}

asio::awaitable<result<metadata::producer_id_block>> controller_frontend::allocate_producer_ids(
    int32_t count) {
    if (local_is_active()) {
        co_return co_await _local->allocate_producer_ids(count);
    }
    protocol::allocate_producer_ids_request req;
    req.broker_id = node_id{_cfg.node_id};
    req.broker_epoch = _broker_epoch.load();
    auto r = co_await forward_typed<protocol::allocate_producer_ids_request,
                                    protocol::allocate_producer_ids_response>(
        req, protocol::allocate_producer_ids_request::max_version);
    if (!r) {
        co_return r.err();
    }
    if (r->error_code != 0) {
        co_return error(static_cast<error_code>(r->error_code), "AllocateProducerIds failed");
    }
    co_return metadata::producer_id_block{r->producer_id_start.value(), r->producer_id_len};
}

asio::awaitable<result<protocol::elect_leaders_response>> controller_frontend::elect_leaders(
    const protocol::elect_leaders_request& req, int16_t version) {
    auto local = [this, version](protocol::elect_leaders_request r)
        -> asio::awaitable<result<protocol::elect_leaders_response>> {
        co_return co_await _local->handle_elect_leaders(std::move(r), version);
    };
    protocol::elect_leaders_request copy = req;
    co_return co_await on_controller<protocol::elect_leaders_request,
                                     protocol::elect_leaders_response>(std::move(copy), version,
                                                                       local);
}

asio::awaitable<result<protocol::alter_partition_response>> controller_frontend::alter_partition(
    const protocol::alter_partition_request& req) {
    // v2: partitions named by topic id, the ISR as plain broker ids.
    constexpr int16_t version = 2;
    if (local_is_active()) {
        protocol::alter_partition_request copy = req;
        co_return co_await _local->handle_alter_partition(std::move(copy), version);
    }
    co_return co_await forward_typed<protocol::alter_partition_request,
                                     protocol::alter_partition_response>(req, version);
}

asio::awaitable<result<protocol::broker_registration_response>>
controller_frontend::register_broker(const protocol::broker_registration_request& req) {
    co_return co_await forward_typed<protocol::broker_registration_request,
                                     protocol::broker_registration_response>(req, 0);
}

asio::awaitable<result<protocol::broker_heartbeat_response>> controller_frontend::heartbeat(
    const protocol::broker_heartbeat_request& req) {
    co_return co_await forward_typed<protocol::broker_heartbeat_request,
                                     protocol::broker_heartbeat_response>(req, 0);
}

}  // namespace samsa::server::quorum
