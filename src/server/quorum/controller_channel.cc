#include "server/quorum/controller_channel.h"

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

namespace {

template <typename M>
bytes encode(const M& m, int16_t version) {
    protocol::writer w;
    m.encode(w, version);
    return std::move(w.buffer());
}

// What a request gets when it cannot reach the active controller.
protocol::create_topics_response not_controller(const protocol::create_topics_request& req,
                                                const error& e) {
    protocol::create_topics_response resp;
    for (const auto& t : req.topics) {
        auto& r = resp.topics.emplace_back();
        r.name = t.name;
        r.error_code = to_wire(error_code::not_controller);
        r.error_message = e.message;
    }
    return resp;
}

protocol::delete_topics_response not_controller(const protocol::delete_topics_request& req,
                                                const error& e) {
    protocol::delete_topics_response resp;
    for (const auto& t : req.topics) {
        auto& r = resp.responses.emplace_back();
        r.name = t.name;
        r.topic_id = t.topic_id;
        r.error_code = to_wire(error_code::not_controller);
        r.error_message = e.message;
    }
    return resp;
}

protocol::create_partitions_response not_controller(const protocol::create_partitions_request& req,
                                                    const error& e) {
    protocol::create_partitions_response resp;
    for (const auto& t : req.topics) {
        auto& r = resp.results.emplace_back();
        r.name = t.name;
        r.error_code = to_wire(error_code::not_controller);
        r.error_message = e.message;
    }
    return resp;
}

template <typename Response, typename Request>
Response not_controller_resources(const Request& req, const error& e) {
    Response resp;
    for (const auto& res : req.resources) {
        auto& r = resp.responses.emplace_back();
        r.resource_type = res.resource_type;
        r.resource_name = res.resource_name;
        r.error_code = to_wire(error_code::not_controller);
        r.error_message = e.message;
    }
    return resp;
}

protocol::alter_configs_response not_controller(const protocol::alter_configs_request& req,
                                                const error& e) {
    return not_controller_resources<protocol::alter_configs_response>(req, e);
}

protocol::incremental_alter_configs_response not_controller(
    const protocol::incremental_alter_configs_request& req, const error& e) {
    return not_controller_resources<protocol::incremental_alter_configs_response>(req, e);
}

// Whether the controller's answer says it no longer is the controller (its
// leadership moved while the request travelled): worth sending again.
template <typename Entries>
bool any_not_controller(const Entries& entries) {
    return std::any_of(entries.begin(), entries.end(), [](const auto& e) {
        return e.error_code == to_wire(error_code::not_controller);
    });
}
bool names_not_controller(const protocol::create_topics_response& r) {
    return any_not_controller(r.topics);
}
bool names_not_controller(const protocol::delete_topics_response& r) {
    return any_not_controller(r.responses);
}
bool names_not_controller(const protocol::create_partitions_response& r) {
    return any_not_controller(r.results);
}
bool names_not_controller(const protocol::alter_configs_response& r) {
    return any_not_controller(r.responses);
}
bool names_not_controller(const protocol::incremental_alter_configs_response& r) {
    return any_not_controller(r.responses);
}
bool names_not_controller(const protocol::elect_leaders_response& r) {
    return r.error_code == to_wire(error_code::not_controller);
}

// How long a request may wait for a controller: its own timeout where it has
// one, else request.timeout.ms.
template <typename Request>
std::chrono::milliseconds patience_of(const Request& req, int32_t request_timeout_ms) {
    if constexpr (requires { req.timeout_ms; }) {
        if (req.timeout_ms > 0) {
            return std::chrono::milliseconds(req.timeout_ms);
        }
    }
    return std::chrono::milliseconds(std::max(request_timeout_ms, 0));
}

// Between two tries while no controller answers (Kafka's retry.backoff.ms).
constexpr std::chrono::milliseconds k_forward_retry_backoff{100};

asio::awaitable<void> sleep_for(std::chrono::milliseconds d) {
    asio::steady_timer t(co_await asio::this_coro::executor, d);
    std::error_code ignored;
    co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
}

}  // namespace

controller_channel::controller_channel(const config::broker_config& cfg,
                                       metadata::controller* local, metadata_quorum& quorum,
                                       asio::any_io_executor client_executor)
    : _cfg(cfg), _local(local), _quorum(quorum), _ex(std::move(client_executor)) {}

controller_channel::~controller_channel() {
    std::lock_guard lock(_mutex);
    for (auto& [id, c] : _clients) {
        c->close();
    }
}

bool controller_channel::local_is_active() const {
    return _local && _quorum.is_local_leader();
}

std::shared_ptr<net::kafka_rpc_client> controller_channel::client_for(int32_t node) {
    std::lock_guard lock(_mutex);
    if (auto it = _clients.find(node); it != _clients.end()) {
        return it->second;
    }
    for (const auto& v : _cfg.controller_quorum_voters) {
        if (v.id == node) {
            auto c = net::kafka_rpc_client::create(
                _ex, v.host, v.port, fmt::format("samsa-broker-{}", _cfg.node_id),
                std::chrono::milliseconds(_cfg.request_timeout_ms));
            _clients.emplace(node, c);
            return c;
        }
    }
    return nullptr;
}

asio::awaitable<result<bytes>> controller_channel::forward(int16_t api_key, int16_t version,
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

template <typename Request, typename Response>
asio::awaitable<result<Response>> controller_channel::forward_typed(const Request& request,
                                                                    int16_t version) {
    const bytes encoded = encode(request, version);
    auto body = co_await forward(Request::api_key, version, encoded);
    if (!body) {
        co_return body.err();
    }
    Response resp;
    protocol::reader r(*body);
    resp.decode(r, version);
    if (!r.ok()) {
        co_return error(error_code::not_controller, "the controller's answer did not decode");
    }
    co_return resp;
}

// Kafka's forwarding manager: a request that finds no controller (an election
// under way, the old controller's connection broken, an answer saying it no
// longer leads) waits and is sent again, to whichever node leads by then (this
// one included), until its own deadline; only then is NOT_CONTROLLER the answer.
template <typename Request, typename Response, typename Local>
asio::awaitable<result<Response>> controller_channel::on_controller(Request req, int16_t version,
                                                                    Local local) {
    const auto deadline =
        std::chrono::steady_clock::now() + patience_of(req, _cfg.request_timeout_ms);
    while (true) {
        if (local_is_active()) {
            co_return co_await local(std::move(req));
        }
        auto r = co_await forward_typed<Request, Response>(req, version);
        bool retry = !r || names_not_controller(*r);
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (!retry || left.count() <= 0) {
            co_return r;
        }
        co_await sleep_for(std::min(left, k_forward_retry_backoff));
    }
}

#define SAMSA_CONTROLLER_OP(op, Request, Response)                                                \
    asio::awaitable<protocol::Response> controller_channel::op(protocol::Request req) {           \
        auto local = [this](protocol::Request r) -> asio::awaitable<result<protocol::Response>> { \
            co_return co_await _local->op(std::move(r));                                          \
        };                                                                                        \
        const protocol::Request copy = req;                                                       \
        auto r = co_await on_controller<protocol::Request, protocol::Response>(                   \
            std::move(req), protocol::Request::max_version, local);                               \
        if (!r) {                                                                                 \
            co_return not_controller(copy, r.err());                                              \
        }                                                                                         \
        co_return std::move(*r);                                                                  \
    }

SAMSA_CONTROLLER_OP(create_topics, create_topics_request, create_topics_response)
SAMSA_CONTROLLER_OP(create_partitions, create_partitions_request, create_partitions_response)
SAMSA_CONTROLLER_OP(alter_configs, alter_configs_request, alter_configs_response)
SAMSA_CONTROLLER_OP(incremental_alter_configs, incremental_alter_configs_request,
                    incremental_alter_configs_response)
#undef SAMSA_CONTROLLER_OP

asio::awaitable<protocol::delete_topics_response> controller_channel::delete_topics(
    protocol::delete_topics_request req) {
    if (!local_is_active()) {
        // Forwarded in the latest version, which names topics in `topics` only
        // (the local controller reads either form).
        for (auto& name : req.topic_names) {
            auto& t = req.topics.emplace_back();
            t.name = std::move(name);
        }
        req.topic_names.clear();
    }
    auto local = [this](protocol::delete_topics_request r)
        -> asio::awaitable<result<protocol::delete_topics_response>> {
        co_return co_await _local->delete_topics(std::move(r));
    };
    const protocol::delete_topics_request copy = req;
    auto r =
        co_await on_controller<protocol::delete_topics_request, protocol::delete_topics_response>(
            std::move(req), protocol::delete_topics_request::max_version, local);
    if (!r) {
        co_return not_controller(copy, r.err());
    }
    co_return std::move(*r);
}

asio::awaitable<result<metadata::producer_id_block>> controller_channel::allocate_producer_ids(
    int32_t count) {
    if (local_is_active()) {
        co_return co_await _local->allocate_producer_ids(count);
    }
    protocol::allocate_producer_ids_request req;
    req.broker_id = _cfg.node_id;
    auto r = co_await forward_typed<protocol::allocate_producer_ids_request,
                                    protocol::allocate_producer_ids_response>(
        req, protocol::allocate_producer_ids_request::max_version);
    if (!r) {
        co_return r.err();
    }
    if (r->error_code != 0) {
        co_return error(static_cast<error_code>(r->error_code), "AllocateProducerIds failed");
    }
    co_return metadata::producer_id_block{r->producer_id_start, r->producer_id_len};
}

asio::awaitable<result<protocol::elect_leaders_response>> controller_channel::elect_leaders(
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

asio::awaitable<result<protocol::alter_partition_response>> controller_channel::alter_partition(
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

asio::awaitable<result<protocol::broker_registration_response>> controller_channel::register_broker(
    const protocol::broker_registration_request& req) {
    co_return co_await forward_typed<protocol::broker_registration_request,
                                     protocol::broker_registration_response>(req, 0);
}

asio::awaitable<result<protocol::broker_heartbeat_response>> controller_channel::heartbeat(
    const protocol::broker_heartbeat_request& req) {
    co_return co_await forward_typed<protocol::broker_heartbeat_request,
                                     protocol::broker_heartbeat_response>(req, 0);
}

}  // namespace samsa::server::quorum
