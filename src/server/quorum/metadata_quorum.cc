#include "server/quorum/metadata_quorum.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <asio/post.hpp>
#include <filesystem>
#include <future>
#include <random>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/logging/loggers.h"
#include "metadata/metadata_log.h"
#include "raft/raft_batch_codec.h"
#include "raft/raft_wire.h"

namespace samsa::server::quorum {

namespace {

// A peer's request the node has not answered after this long is answered with
// REQUEST_TIMED_OUT, so its handler (and the peer) are not left waiting: more
// than a parked Fetch's longest wait.
constexpr auto k_inbound_timeout = std::chrono::seconds(5);

class system_random final : public raft::random_source {
  public:
    int64_t uniform(int64_t lo, int64_t hi) override {
        if (hi <= lo) {
            return lo;
        }
        return std::uniform_int_distribution<int64_t>(lo, hi - 1)(_rng);
    }

  private:
    std::mt19937_64 _rng{std::random_device{}()};
};

raft::raft_config raft_config_of(const config::broker_config& cfg) {
    raft::raft_config c;
    c.local_id = raft::node_id{cfg.node_id};
    for (const auto& v : cfg.controller_quorum_voters) {
        c.voters.push_back(raft::node_id{v.id});
    }
    c.election_timeout = raft::raft_ms{cfg.quorum_election_timeout_ms};
    c.fetch_timeout = raft::raft_ms{cfg.quorum_fetch_timeout_ms};
    c.election_backoff_max = raft::raft_ms{cfg.quorum_election_backoff_max_ms};
    c.request_timeout = raft::raft_ms{cfg.quorum_request_timeout_ms};
    c.retry_backoff = raft::raft_ms{cfg.quorum_retry_backoff_ms};
    c.append_linger = raft::raft_ms{cfg.quorum_append_linger_ms};
    return c;
}

void set_correlation(raft::raft_message& m, int32_t corr) {
    std::visit([corr](auto& v) { v.correlation_id = corr; }, m);
}

int32_t correlation_of(const raft::raft_message& m) {
    return std::visit([](const auto& v) { return v.correlation_id; }, m);
}

// What a peer's request came from (the node answers to it).
raft::node_id sender_of(const raft::raft_message& m) {
    if (auto* v = std::get_if<raft::vote_request>(&m)) {
        return v->candidate_id;
    }
    if (auto* b = std::get_if<raft::begin_quorum_epoch_request>(&m)) {
        return b->leader.leader;
    }
    if (auto* e = std::get_if<raft::end_quorum_epoch_request>(&m)) {
        return e->leader.leader;
    }
    if (auto* f = std::get_if<raft::fetch_request>(&m)) {
        return f->replica_id;
    }
    if (auto* s = std::get_if<raft::fetch_snapshot_request>(&m)) {
        return s->replica_id;
    }
    return raft::no_node;
}

// The error answer of the api a request was of.
raft::raft_message error_answer(int16_t api_key, int32_t corr, error_code ec) {
    switch (api_key) {
        case 52:
            return raft::vote_response{corr, ec, {}, false};
        case 53:
            return raft::begin_quorum_epoch_response{corr, ec, {}};
        case 54:
            return raft::end_quorum_epoch_response{corr, ec, {}};
        case 1: {
            raft::fetch_response f;
            f.correlation_id = corr;
            f.error = ec;
            return f;
        }
        default: {
            raft::fetch_snapshot_response s;
            s.correlation_id = corr;
            s.error = ec;
            return s;
        }
    }
}

}  // namespace

metadata_quorum::metadata_quorum(const config::broker_config& cfg, asio::io_context& io,
                                 metadata::metadata_cache& cache,
                                 std::shared_ptr<const metadata::metadata_image> base,
                                 std::shared_ptr<const security::client_security> security)
    : _cfg(cfg),
      _security(std::move(security)),
      _io(io),
      _cache(cache),
      _base(base),
      _published(base),
      _loader(std::move(base)),
      _snapshots(cfg.metadata_log_max_record_bytes_between_snapshots,
                 std::chrono::milliseconds(cfg.metadata_log_max_snapshot_interval_ms)),
      _origin(std::chrono::steady_clock::now()),
      _timer(io) {}

metadata_quorum::~metadata_quorum() {
    shutdown();
}

status metadata_quorum::open() {
    const std::string& dir = _cfg.metadata_log_dir;
    auto storage = metadata::open_metadata_partition(dir, wall_clock_ms());
    if (!storage) {
        return error(storage.err().code,
                     "cannot open the metadata log in " + dir + ": " + storage.err().message);
    }
    _storage = *storage;
    auto log = raft::storage_raft_log::open(_storage, [] { return wall_clock_ms(); });
    if (!log) {
        return log.err();
    }
    _log = std::move(*log);
    _store = std::make_unique<raft::file_quorum_state_store>(
        (std::filesystem::path(_storage->dir()) / raft::quorum_state_file_name).string());
    _random = std::make_unique<system_random>();
    auto rc = raft_config_of(_cfg);
    rc.cluster_id = _base->cluster_id;
    _node = std::make_unique<raft::raft_node>(rc, *_log, *_store, *this, *this, *_random);
    return {};
}

void metadata_quorum::start() {
    asio::post(_io, [this] {
        if (auto st = _node->start(now()); !st) {
            logging::raft().error("event=quorum_start_failed error=\"{}\"", st.err().message);
            return;
        }
        _started = true;
        logging::raft().info("event=quorum_started node_id={} voters={} log_end_offset={}",
                             _cfg.node_id, _cfg.controller_quorum_voters.size(),
                             _log->end_offset().value());
        after_node_call();
    });
}

void metadata_quorum::resign(std::chrono::milliseconds grace) {
    if (_cfg.controller_quorum_voters.size() < 2 || !is_local_leader()) {
        return;
    }
    auto done = std::make_shared<std::promise<void>>();
    auto resigned = done->get_future();
    asio::post(_io, [this, done] {
        if (_started && !_stopped && _node->is_leader()) {
            _node->resign(now());
            after_node_call();  // queues EndQuorumEpoch to every voter
            logging::raft().info("event=quorum_resigned node_id={} epoch={}", _cfg.node_id,
                                 _node->epoch().value());
        }
        done->set_value();
    });
    resigned.wait_for(grace);
    // The requests are written by the controller thread's io as it runs on;
    // give them the rest of the grace period to leave before it stops.
    std::this_thread::sleep_for(grace / 2);
}

void metadata_quorum::shutdown() {
    if (_stopped) {
        return;
    }
    _stopped = true;
    std::error_code ignored;
    _timer.cancel(ignored);
    for (auto& [id, p] : _peers) {
        p->close();
    }
    _peers.clear();
    if (_storage) {
        if (auto st = _storage->close(); !st) {
            logging::raft().error("event=metadata_log_close_failed error=\"{}\"", st.err().message);
        }
    }
}

raft::raft_time metadata_quorum::now() const {
    return raft::raft_time{
        std::chrono::duration_cast<raft::raft_ms>(std::chrono::steady_clock::now() - _origin)};
}

raft::leader_and_epoch metadata_quorum::leader() const {
    return {raft::node_id{_leader_id.load()}, raft::raft_epoch{_leader_epoch.load()}};
}

// ---- the node's clock and messages

void metadata_quorum::publish_commit_latency() {
    constexpr double none = std::numeric_limits<double>::quiet_NaN();
    auto& c = _node->commit_latency();
    const auto t = now();
    const bool leading = _node->is_leader();
    // Once a second at most: a scrape needs no fresher figure, and the node
    // is called for every message.
    if (leading == _latency_published_leading && t < _latency_published_at + raft::raft_ms(1000)) {
        return;
    }
    _latency_published_leading = leading;
    _latency_published_at = t;
    const auto avg = leading ? c.average_ms(t) : std::nullopt;
    const auto max = leading ? c.max_ms(t) : std::nullopt;
    _commit_latency_avg = avg ? *avg : none;
    _commit_latency_max = max ? double(*max) : none;
}

void metadata_quorum::after_node_call() {
    if (_stopped || !_started) {
        return;
    }
    // poll() may send (and a send's answer may come back only through the
    // network), so one round suffices: nothing here calls into the node again.
    raft::raft_time next = _node->poll(now());
    flush_outbox();
    if (auto hw = _node->high_watermark()) {
        _known_hw = hw->value() - 1;
    }
    publish_commit_latency();
    if (auto& f = _node->failure()) {
        logging::raft().critical("event=quorum_failed error=\"{}\"", f->message);
        return;
    }
    maybe_clean_log();
    expire_inbound();
    arm_timer(next);
}

void metadata_quorum::arm_timer(raft::raft_time next) {
    auto wait = next - now();
    if (!_inbound.empty()) {
        wait = std::min(wait, raft::raft_ms{1000});
    }
    _timer.expires_after(std::max(wait, raft::raft_ms{0}));
    _timer.async_wait([this](const std::error_code& ec) {
        if (!ec) {
            after_node_call();
        }
    });
}

void metadata_quorum::send(raft::node_id to, raft::raft_message message) {
    _outbox.emplace_back(to, std::move(message));
}

void metadata_quorum::flush_outbox() {
    auto out = std::move(_outbox);
    _outbox.clear();
    for (auto& [to, m] : out) {
        if (!raft::is_request(m)) {
            auto it = _inbound.find(correlation_of(m));
            if (it == _inbound.end()) {
                continue;  // timed out already
            }
            auto answer = std::move(it->second.answer);
            _inbound.erase(it);
            answer(std::move(m));
            continue;
        }
        auto client = peer(to);
        if (!client) {
            continue;
        }
        const int32_t corr = correlation_of(m);
        auto w = raft::encode_raft_request(m, _base->cluster_id);
        const int16_t key = w.api_key;
        const int16_t version = w.api_version;
        client->call(key, version, std::move(w.body),
                     [this, to = to, key, version, corr](result<net::rpc_answer> r) {
                         if (_stopped || !_started) {
                             return;
                         }
                         if (!r) {
                             return;  // the node retries on its timers
                         }
                         auto m = raft::decode_raft_response(key, version, r->body, corr);
                         if (!m) {
                             logging::raft().warn(
                                 "event=quorum_bad_answer from={} api_key={} error=\"{}\"",
                                 to.value(), key, m.err().message);
                             return;
                         }
                         const error_code answered = std::visit(
                             [](const auto& v) {
                                 if constexpr (requires { v.error; }) {
                                     return v.error;
                                 } else {
                                     return error_code::none;
                                 }
                             },
                             *m);
                         if (answered == error_code::inconsistent_cluster_id) {
                             logging::raft().error(
                                 "event=quorum_cluster_id_mismatch peer={} api_key={} "
                                 "cluster_id={} fix=\"node {} was formatted with another "
                                 "cluster id: format every node with the same --cluster-id\"",
                                 to.value(), key, _base->cluster_id, to.value());
                         }
                         _node->handle(to, *m, now());
                         after_node_call();
                     });
    }
}

std::shared_ptr<net::kafka_rpc_client> metadata_quorum::peer(raft::node_id id) {
    auto it = _peers.find(id.value());
    if (it != _peers.end()) {
        return it->second;
    }
    for (const auto& v : _cfg.controller_quorum_voters) {
        if (v.id == id.value()) {
            auto c = net::kafka_rpc_client::create(
                _io.get_executor(), v.host, v.port, fmt::format("samsa-raft-{}", _cfg.node_id),
                std::chrono::milliseconds(_cfg.quorum_request_timeout_ms), _security);
            _peers.emplace(id.value(), c);
            return c;
        }
    }
    return nullptr;
}

void metadata_quorum::handle_request(raft::raft_message request,
                                     std::function<void(raft::raft_message)> answer) {
    asio::post(_io, [this, request = std::move(request), answer = std::move(answer)]() mutable {
        const int16_t key = raft::raft_api_key(request);
        const int32_t corr = _next_inbound++;
        if (_next_inbound == INT32_MAX) {
            _next_inbound = 1;
        }
        if (_stopped || !_started) {
            answer(error_answer(key, corr, error_code::broker_not_available));
            return;
        }
        set_correlation(request, corr);
        _inbound[corr] = inbound{std::move(answer), key, std::chrono::steady_clock::now()};
        _node->handle(sender_of(request), request, now());
        after_node_call();
    });
}

void metadata_quorum::expire_inbound() {
    const auto cutoff = std::chrono::steady_clock::now() - k_inbound_timeout;
    for (auto it = _inbound.begin(); it != _inbound.end();) {
        if (it->second.received < cutoff) {
            auto answer = std::move(it->second.answer);
            auto m = error_answer(it->second.api_key, it->first, error_code::request_timed_out);
            it = _inbound.erase(it);
            answer(std::move(m));
        } else {
            ++it;
        }
    }
}

raft::quorum_description metadata_quorum::describe() const {
    return _node->describe_quorum();
}

void metadata_quorum::describe_async(std::function<void(raft::quorum_description)> done) {
    asio::post(_io, [this, done = std::move(done)] {
        if (!_started || _stopped) {
            raft::quorum_description d;
            d.error = error_code::broker_not_available;
            done(std::move(d));
            return;
        }
        // The node keeps monotonic times; DescribeQuorum gives wall-clock ones.
        auto d = describe();
        const int64_t wall = wall_clock_ms();
        const int64_t mono = now().ms();
        auto to_wall = [&](int64_t t) { return t < 0 ? t : wall - (mono - t); };
        for (auto* list : {&d.voters, &d.observers}) {
            for (auto& r : *list) {
                r.last_fetch_ms = to_wall(r.last_fetch_ms);
                r.last_caught_up_ms = to_wall(r.last_caught_up_ms);
            }
        }
        done(std::move(d));
    });
}

// ---- the controller's writer

result<int64_t> metadata_quorum::append(const std::vector<metadata::metadata_record>& records) {
    if (records.empty()) {
        return error(error_code::invalid_request, "empty metadata batch");
    }
    std::vector<bytes> values;
    values.reserve(records.size());
    for (const auto& r : records) {
        values.push_back(metadata::encode_metadata_record(r));
    }
    auto last = _node->append(std::move(values), now(), _controller_epoch);
    if (!last) {
        return error(last.err().code == error_code::not_leader_or_follower
                         ? error_code::not_controller
                         : last.err().code,
                     last.err().message);
    }
    // The node flushes after append.linger.ms: re-arm the timer for it.
    asio::post(_io, [this] { after_node_call(); });
    return last->value();
}

int64_t metadata_quorum::end_offset() const {
    return _log->end_offset().value();
}

void metadata_quorum::when_committed(int64_t offset, std::function<void(status)> done) {
    _node->when_committed(raft::raft_offset{offset}, std::move(done));
}

// ---- what commits

void metadata_quorum::handle_commit(const raft::raft_batch& batch) {
    _loader.handle_commit(batch);
}

void metadata_quorum::end_of_commits() {
    if (auto next = _loader.end_of_commits()) {
        publish(std::move(next));
        maybe_snapshot();
    }
}

void metadata_quorum::maybe_snapshot() {
    const auto now = std::chrono::steady_clock::now();
    if (!_snapshots.due(_loader.bytes_since_snapshot(), now)) {
        return;
    }
    const int64_t end_offset = _loader.end_offset();
    auto data = metadata::encode_snapshot(*_loader.image(), _loader.epoch(),
                                          _loader.last_commit_wall_ms(), wall_clock_ms());
    if (!data) {
        logging::raft().error("event=metadata_snapshot_failed error=\"{}\"", data.err().message);
        return;
    }
    const size_t size = data->size();
    auto id = _node->create_snapshot(raft::raft_offset{end_offset}, std::move(*data));
    if (!id) {
        logging::raft().error("event=metadata_snapshot_failed end_offset={} error=\"{}\"",
                              end_offset, id.err().message);
        return;
    }
    _loader.reset_bytes();
    _snapshots.taken(now);
    logging::raft().info("event=metadata_snapshot end_offset={} epoch={} bytes={}",
                         id->offset.value(), id->epoch.value(), size);
    // The log below it stays until metadata.max.retention.* let it go: checked
    // now as well as every minute, so a small limit holds between the checks.
    _next_clean = {};
    maybe_clean_log();
}

void metadata_quorum::maybe_clean_log() {
    const auto now = std::chrono::steady_clock::now();
    if (now < _next_clean) {
        return;
    }
    _next_clean = now + k_clean_interval;
    const auto start_before = _log->start_offset();
    auto cleaned = _node->clean_snapshots(
        {_cfg.metadata_max_retention_bytes, _cfg.metadata_max_retention_ms}, wall_clock_ms());
    if (!cleaned) {
        logging::raft().error("event=metadata_log_clean_failed error=\"{}\"",
                              cleaned.err().message);
    } else if (*cleaned) {
        logging::raft().info("event=metadata_log_cleaned log_start={} was={} snapshots={}",
                             _log->start_offset().value(), start_before.value(),
                             _log->snapshot_infos().size());
    }
}

void metadata_quorum::handle_snapshot(const raft::raft_snapshot& snapshot) {
    auto next = _loader.load_snapshot(snapshot);
    if (!next) {
        logging::raft().critical("event=metadata_snapshot_inconsistent offset={} error=\"{}\"",
                                 snapshot.id.offset.value(), next.err().message);
        return;
    }
    publish(std::move(*next));
}

void metadata_quorum::publish(std::shared_ptr<const metadata::metadata_image> next) {
    auto prev = std::exchange(_published, next);
    _cache.update(next);
    for (const auto& l : _image_listeners) {
        l(prev, next);
    }
    _applied = next->offset;
}

void metadata_quorum::handle_leader_change(raft::leader_and_epoch leader) {
    _leader_id = leader.leader.value();
    _leader_epoch = leader.epoch.value();
    const bool local = leader.leader.value() == _cfg.node_id;
    logging::raft().info("event=quorum_leader node_id={} leader={} epoch={}", _cfg.node_id,
                         leader.leader.value(), leader.epoch.value());
    if (local) {
        _controller_epoch = leader.epoch;
    }
    for (const auto& l : _leader_listeners) {
        l(leader, local);
    }
}

}  // namespace samsa::server::quorum
