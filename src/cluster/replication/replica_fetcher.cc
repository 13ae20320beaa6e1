#include "cluster/replication/replica_fetcher.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/use_awaitable.hpp>

#include "cluster/replication/fetch_session_handler.h"
#include "common/clock.h"
#include "common/logging/loggers.h"
#include "common/metrics/thread_stats.h"
#include "net/await_callback.h"
#include "net/kafka_rpc_client.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"

namespace samsa::cluster::replication {

namespace {

// Fetch v13: partitions named by topic id, and the follower's last fetched
// epoch for the diverging-epoch check.
constexpr int16_t k_fetch_version = 13;

struct position {
    bool valid = false;  // the partition is here and follows
    int64_t fetch_offset = 0;
    int32_t last_epoch = -1;
    int64_t log_start_offset = 0;
    bool throttled = false;  // follower.replication.throttled.replicas names it here
    bool in_sync = false;    // this replica is in the ISR
};

}  // namespace

class replica_fetcher : public std::enable_shared_from_this<replica_fetcher> {
  public:
    replica_fetcher(const config::broker_config& cfg, cluster::replica_manager& rm,
                    asio::any_io_executor ex, node_id leader,
                    std::shared_ptr<const security::client_security> security)
        : _cfg(cfg), _rm(rm), _ex(ex), _leader(leader), _security(std::move(security)), _wake(ex) {}

    void start() {
        auto self = shared_from_this();
        asio::co_spawn(
            _ex, [self]() { return self->run(); }, asio::detached);
    }

    void stop() {
        {
            std::lock_guard lock(_mutex);
            _stopped = true;
        }
        auto self = shared_from_this();
        asio::post(_ex, [self] {
            self->_wake.cancel();
            if (self->_client) {
                self->_client->close();
            }
        });
    }

    void update(std::vector<followed_partition> parts, std::string host, uint16_t port) {
        {
            std::lock_guard lock(_mutex);
            _parts = std::move(parts);
            _host = std::move(host);
            _port = port;
        }
        auto self = shared_from_this();
        asio::post(_ex, [self] { self->_wake.cancel(); });
    }

  private:
    asio::awaitable<void> run();
    asio::awaitable<void> sleep(std::chrono::milliseconds d) {
        _wake.expires_after(d);
        std::error_code ec;
        co_await _wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    asio::awaitable<result<net::rpc_answer>> call(const bytes& body);

    const config::broker_config& _cfg;
    cluster::replica_manager& _rm;
    asio::any_io_executor _ex;
    node_id _leader;
    std::shared_ptr<const security::client_security> _security;
    asio::steady_timer _wake;
    std::shared_ptr<net::kafka_rpc_client> _client;
    std::string _client_endpoint;
    fetch_session_handler _session;

    std::mutex _mutex;
    std::vector<followed_partition> _parts;
    std::string _host;
    uint16_t _port = 0;
    bool _stopped = false;
};

asio::awaitable<result<net::rpc_answer>> replica_fetcher::call(const bytes& body) {
    net::kafka_rpc_client* c = _client.get();
    auto start = [c, &body](std::function<void(result<net::rpc_answer>)> done) {
        c->call(protocol::fetch_request::api_key, k_fetch_version, body, std::move(done));
    };
    co_return co_await net::await_callback<result<net::rpc_answer>>(start);
}

asio::awaitable<void> replica_fetcher::run() {
    auto self = shared_from_this();
    const auto backoff = std::chrono::milliseconds(std::max(1, _cfg.replica_fetch_backoff_ms));
    for (;;) {
        std::vector<followed_partition> parts;
        std::string host;
        uint16_t port = 0;
        {
            std::lock_guard lock(_mutex);
            if (_stopped) {
                co_return;
            }
            parts = _parts;
            host = _host;
            port = _port;
        }
        if (parts.empty() || host.empty()) {
            co_await sleep(std::chrono::hours(1));  // until update() or stop()
            continue;
        }
        const std::string endpoint = fmt::format("{}:{}", host, port);
        if (!_client || _client_endpoint != endpoint) {
            if (_client) {
                _client->close();
            }
            // replica.socket.timeout.ms bounds each fetch, as in Kafka's
            // replica fetcher; it is at least replica.fetch.wait.max.ms.
            _client = net::kafka_rpc_client::create(
                _ex, host, port, fmt::format("samsa-replica-fetcher-{}", _cfg.node_id),
                std::chrono::milliseconds(_cfg.replica_socket_timeout_ms), _security);
            _client_endpoint = endpoint;
            _session = {};  // a new leader process: no session there yet
        }

        // Where each follower replica stands, read on its shard.
        std::vector<position> pos(parts.size());
        std::map<size_t, std::vector<size_t>> by_shard;
        for (size_t i = 0; i < parts.size(); ++i) {
            by_shard[parts[i].shard].push_back(i);
        }
        for (auto& [shard, indexes] : by_shard) {
            auto read = [this, shard = shard, &indexes = indexes, &parts, &pos]() {
                for (size_t i : indexes) {
                    cluster::partition* p = _rm.get(shard, parts[i].tp);
                    if (!p || p->is_leader()) {
                        continue;
                    }
                    pos[i] = {true,
                              p->log()->log_end_offset(),
                              p->last_log_epoch().value(),
                              p->log()->log_start_offset(),
                              p->follower_throttled(),
                              p->in_isr(node_id{_cfg.node_id})};
                }
                return 0;
            };
            co_await _rm.run_on_shard<int>(shard, read);
        }

        std::vector<partition_fetch_state> wanted;
        // KIP-73 (Kafka's shouldFollowerThrottle): a throttled replica that is
        // catching up is left out of this round while the follower throttle
        // is exceeded.
        const bool over_quota = _rm.follower_quota().is_exceeded(wall_clock_ms());
        for (size_t i = 0; i < parts.size(); ++i) {
            if (pos[i].valid && !(over_quota && pos[i].throttled && !pos[i].in_sync)) {
                wanted.push_back({parts[i].tp.topic, parts[i].topic_id, parts[i].tp.partition,
                                  pos[i].fetch_offset, pos[i].last_epoch, pos[i].log_start_offset,
                                  _cfg.replica_fetch_max_bytes, parts[i].leader_epoch});
            }
        }
        if (wanted.empty()) {
            co_await sleep(backoff);
            continue;
        }
        protocol::fetch_request req;
        req.replica_id = node_id{_cfg.node_id};
        req.max_wait_ms = _cfg.replica_fetch_wait_max_ms;
        req.min_bytes = std::max(1, _cfg.replica_fetch_min_bytes);
        req.max_bytes = _cfg.replica_fetch_response_max_bytes;
        _session.build(wanted, req);
        protocol::writer w;
        req.encode(w, k_fetch_version);
        const bytes body = std::move(w.buffer());
        auto answer = co_await call(body);
        if (!answer) {
            logging::replication().debug("event=replica_fetch_failed leader={} error=\"{}\"",
                                         _leader, answer.err().message);
            _session.handle_error();
            co_await sleep(backoff);
            continue;
        }
        protocol::fetch_response resp;
        protocol::reader r(answer->body);
        resp.decode(r, k_fetch_version);
        if (!r.ok()) {
            _session.handle_error();
            co_await sleep(backoff);
            continue;
        }
        const auto top_error = static_cast<error_code>(resp.error_code);
        _session.handle_response(top_error, resp.session_id);
        if (top_error == error_code::fetch_session_id_not_found ||
            top_error == error_code::invalid_fetch_session_epoch) {
            continue;  // at once, with a full fetch
        }
        if (top_error != error_code::none) {
            co_await sleep(backoff);
            continue;
        }

        // Each partition's part, applied on its shard.
        bool any_error = false;
        std::map<
            size_t,
            std::vector<std::pair<
                size_t, const protocol::fetch_response::fetchable_topic_response::partition_data*>>>
            work;
        for (const auto& t : resp.responses) {
            for (const auto& pd : t.partitions) {
                for (size_t i = 0; i < parts.size(); ++i) {
                    if (parts[i].topic_id == t.topic_id &&
                        parts[i].tp.partition == pd.partition_index) {
                        work[parts[i].shard].emplace_back(i, &pd);
                        break;
                    }
                }
            }
        }
        const int64_t now = wall_clock_ms();
        for (auto& [shard, items] : work) {
            auto apply = [this, shard = shard, &items = items, &parts, &pos, now]() {
                bool failed = false;
                for (auto& [i, pd] : items) {
                    cluster::partition* p = _rm.get(shard, parts[i].tp);
                    if (!p || p->is_leader()) {
                        continue;
                    }
                    if (pd->diverging_epoch.epoch >= 0) {
                        logging::replication().info(
                            "event=follower_truncation partition={} leader={} "
                            "diverging_epoch={} truncate_to={} log_end_offset={}",
                            p->tp().to_string(), _leader, pd->diverging_epoch.epoch,
                            pd->diverging_epoch.end_offset, p->log()->log_end_offset());
                        const epoch_end_offset diverging{
                            leader_epoch{pd->diverging_epoch.epoch},
                            kafka_offset{pd->diverging_epoch.end_offset}};
                        if (auto st = p->truncate_to_diverging_epoch(diverging, now); !st) {
                            failed = true;
                        }
                        continue;
                    }
                    const auto ec = static_cast<error_code>(pd->error_code);
                    if (ec == error_code::offset_out_of_range) {
                        // Behind the leader's log start (retention): start over there.
                        if (pos[i].fetch_offset < pd->log_start_offset) {
                            (void)p->log()->truncate_fully_and_start_at(pd->log_start_offset, now);
                        } else {
                            (void)p->truncate_to(kafka_offset{pd->high_watermark}, now);
                        }
                        failed = true;
                        continue;
                    }
                    if (ec != error_code::none) {
                        failed = true;  // stale leadership: the next image settles it
                        continue;
                    }
                    auto data = pd->records.contiguous();
                    // Kafka's ReplicationBytesInPerSec: what the leader sent.
                    if (metrics::enabled()) {
                        metrics::local().replication_bytes_in.add(data.size());
                    }
                    if (pos[i].throttled) {
                        _rm.follower_quota().record(int64_t(data.size()), now);
                    }
                    if (auto st = p->append_as_follower(data, pd->high_watermark, now); !st) {
                        logging::replication().warn(
                            "event=follower_append_failed partition={} leader={} "
                            "error=\"{}\"",
                            p->tp().to_string(), _leader, st.err().message);
                        failed = true;
                    }
                }
                return failed;
            };
            any_error |= co_await _rm.run_on_shard<bool>(shard, apply);
        }
        if (any_error) {
            co_await sleep(backoff);
        }
    }
}

replica_fetcher_manager::replica_fetcher_manager(
    const config::broker_config& cfg, cluster::replica_manager& rm,
    std::shared_ptr<const security::client_security> security)
    : _cfg(cfg), _rm(rm), _security(std::move(security)) {}

replica_fetcher_manager::~replica_fetcher_manager() {
    stop();
}

void replica_fetcher_manager::stop() {
    std::lock_guard lock(_mutex);
    _stopped = true;
    for (auto& [id, f] : _fetchers) {
        f->stop();
    }
    _fetchers.clear();
}

void replica_fetcher_manager::on_metadata(const metadata::metadata_image& image) {
    const int32_t fetchers = std::max(1, _cfg.num_replica_fetchers);
    const node_id self{_cfg.node_id};
    std::map<std::pair<node_id, int32_t>, std::vector<followed_partition>> by_leader;
    for (const auto& [name, topic] : image.topics_by_name) {
        for (const auto& reg : topic->partitions) {
            if (!reg.leader.is_valid() || reg.leader == self || !contains(reg.replicas, self)) {
                continue;
            }
            const auto h = uint64_t(std::hash<std::string>{}(name)) * 31 + uint64_t(reg.partition);
            const auto fetcher_id = int32_t(h % uint64_t(fetchers));
            by_leader[{reg.leader, fetcher_id}].push_back({{name, reg.partition},
                                                           topic->id,
                                                           reg.leader_epoch,
                                                           _rm.shard_of(topic->id, reg.partition)});
        }
    }
    std::lock_guard lock(_mutex);
    if (_stopped) {
        return;
    }
    for (auto& [key, f] : _fetchers) {
        if (!by_leader.count(key)) {
            f->update({}, "", 0);
        }
    }
    for (auto& [key, parts] : by_leader) {
        const node_id leader = key.first;
        std::string host;
        uint16_t port = 0;
        if (auto b = image.brokers.find(leader); b != image.brokers.end()) {
            if (const auto* ep = b->second.endpoint(_cfg.inter_broker_listener_name)) {
                host = ep->host;
                port = ep->port;
            }
        }
        auto& f = _fetchers[key];
        if (!f) {
            auto& ctx = _rm.shard_context(size_t(key.second) % _rm.shard_count());
            f = std::make_shared<replica_fetcher>(_cfg, _rm, ctx.get_executor(), leader, _security);
            f->start();
        }
        f->update(std::move(parts), host, port);
    }
}

}  // namespace samsa::cluster::replication
