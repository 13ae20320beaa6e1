#pragma once
// metadata_quorum: this node's replica of the Raft-replicated metadata log
// (docs/architecture.md, "Metadata"; KIP-595). It drives the raft_node on the controller thread
// (the controller's io_context: one thread owns the node, the Raft log and the
// controller's state), carries the node's messages over the controller
// listener (kafka_rpc_client to each voter; peers' requests arrive through the
// Vote/BeginQuorumEpoch/EndQuorumEpoch/Fetch/FetchSnapshot handlers), hands
// what commits to the metadata_loader and publishes the images it builds,
// on every node alike, leader or not:
//
//   committed batches -> metadata_loader -> image
//                     -> metadata_cache (every reader) -> image listeners
//
// and snapshots the image when the snapshot_generator says one is due. It is also the controller's
// metadata_log_writer: the active controller (the Raft leader) appends through
// it and hears when its batch commits.
//
// Threading: everything except handle_request(), leader(), applied_offset()
// and voters() runs on the controller thread.
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/config/broker_config.h"
#include "metadata/controller.h"
#include "metadata/metadata_cache.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_loader.h"
#include "metadata/metadata_log_writer.h"
#include "metadata/snapshot_generator.h"
#include "net/kafka_rpc_client.h"
#include "raft/quorum_state_file.h"
#include "raft/raft_node.h"
#include "raft/storage_raft_log.h"
#include "security/client_security.h"

namespace samsa::server::quorum {

class metadata_quorum final : public raft::raft_transport,
                              public raft::raft_listener,
                              public metadata::metadata_log_writer {
  public:
    using leader_listener = std::function<void(raft::leader_and_epoch leader, bool local)>;

    // `base`: what records do not carry (cluster id). `tls`: how to reach the
    // other voters' controller listener when it is SSL (null: plaintext).
    metadata_quorum(const config::broker_config& cfg, asio::io_context& io,
                    metadata::metadata_cache& cache,
                    std::shared_ptr<const metadata::metadata_image> base,
                    std::shared_ptr<const security::client_security> security = nullptr);
    ~metadata_quorum() override;

    // Opens the log (recovering it) and the quorum-state file. Before start().
    status open();
    // Before start(): told of every committed image (prev, next).
    void subscribe(metadata::image_listener l) { _image_listeners.push_back(std::move(l)); }
    void on_leader_change(leader_listener l) { _leader_listeners.push_back(std::move(l)); }
    // On the controller thread (posts itself there).
    void start();
    // Controller thread or after it stopped: closes the log.
    void shutdown();
    // Any thread, before the controller thread stops: a leader of a quorum
    // of several hands leadership over at once (EndQuorumEpoch, KIP-595),
    // so the other voters need not wait out their fetch timeout. Returns
    // once the resignation is on its way (bounded by `grace`).
    void resign(std::chrono::milliseconds grace);

    // ---- any thread
    // A peer's request; `answer` gets the node's answer (on the controller
    // thread) or an error message of the same api when none came in time.
    void handle_request(raft::raft_message request, std::function<void(raft::raft_message)> answer);
    raft::leader_and_epoch leader() const;
    bool is_local_leader() const { return leader().leader.value() == _cfg.node_id; }
    // The last offset applied to the published image (-1: none yet).
    int64_t applied_offset() const { return _applied.load(); }
    // The high watermark when this node last heard it (-1: unknown).
    int64_t known_high_watermark() const { return _known_hw.load(); }
    // On the leader, Kafka's commit-latency-avg and -max over the last 30 s
    // (raft/commit_latency.h); NaN while nothing committed in that window.
    double commit_latency_avg_ms() const { return _commit_latency_avg.load(); }
    double commit_latency_max_ms() const { return _commit_latency_max.load(); }
    const std::vector<config::quorum_voter>& voters() const {
        return _cfg.controller_quorum_voters;
    }
    // Controller thread: the last image published, from the base on (so it
    // carries the cluster id even before anything committed).
    std::shared_ptr<const metadata::metadata_image> committed_image() const { return _published; }
    // Controller thread: DescribeQuorum.
    raft::quorum_description describe() const;
    // Any thread: `done(description)` on the controller thread.
    void describe_async(std::function<void(raft::quorum_description)> done);
    // The raft node on the controller thread; tests and DescribeQuorum only.
    const raft::raft_node* node() const { return _node.get(); }

    // ---- metadata_log_writer (controller thread)
    result<int64_t> append(const std::vector<metadata::metadata_record>& records) override;
    int64_t end_offset() const override;
    void when_committed(int64_t offset, std::function<void(status)> done) override;
    // The epoch the controller acts in; appends in another epoch fail.
    void set_controller_epoch(raft::raft_epoch e) { _controller_epoch = e; }

  private:
    // raft_transport
    void send(raft::node_id to, raft::raft_message message) override;
    // raft_listener
    void handle_commit(const raft::raft_batch& batch) override;
    void end_of_commits() override;
    void handle_snapshot(const raft::raft_snapshot& snapshot) override;
    void handle_leader_change(raft::leader_and_epoch leader) override;

    raft::raft_time now() const;
    // After any call into the node: delivers what it sent and re-arms the timer.
    void after_node_call();
    // Controller thread: the node's commit latency into the atomics above.
    void publish_commit_latency();
    void flush_outbox();
    void arm_timer(raft::raft_time next);
    void expire_inbound();
    std::shared_ptr<net::kafka_rpc_client> peer(raft::node_id id);
    void publish(std::shared_ptr<const metadata::metadata_image> next);
    // Snapshots the committed image when the generator says one is due, and
    // drops the log below it.
    void maybe_snapshot();

    struct inbound {
        std::function<void(raft::raft_message)> answer;
        int16_t api_key = 0;
        std::chrono::steady_clock::time_point received;
    };

    const config::broker_config& _cfg;
    std::shared_ptr<const security::client_security> _security;
    asio::io_context& _io;
    metadata::metadata_cache& _cache;
    std::shared_ptr<const metadata::metadata_image> _base;
    std::shared_ptr<const metadata::metadata_image> _published;  // controller thread
    metadata::metadata_loader _loader;
    metadata::snapshot_generator _snapshots;
    // Metadata log retention runs every minute (Kafka's metadata log
    // cleaner), from the node's own calls, and after each snapshot.
    static constexpr std::chrono::minutes k_clean_interval{1};
    std::chrono::steady_clock::time_point _next_clean{};
    void maybe_clean_log();
    std::vector<metadata::image_listener> _image_listeners;
    std::vector<leader_listener> _leader_listeners;

    std::shared_ptr<storage::log> _storage;
    std::unique_ptr<raft::storage_raft_log> _log;
    std::unique_ptr<raft::file_quorum_state_store> _store;
    std::unique_ptr<raft::random_source> _random;
    std::unique_ptr<raft::raft_node> _node;
    std::chrono::steady_clock::time_point _origin;
    asio::steady_timer _timer;
    bool _started = false;
    bool _stopped = false;

    std::vector<std::pair<raft::node_id, raft::raft_message>> _outbox;
    std::map<int32_t, std::shared_ptr<net::kafka_rpc_client>> _peers;
    std::map<int32_t, inbound> _inbound;  // by the correlation id we gave it
    int32_t _next_inbound = 1;

    std::atomic<int32_t> _leader_id{-1};
    std::atomic<int32_t> _leader_epoch{0};
    std::atomic<int64_t> _applied{-1};
    std::atomic<int64_t> _known_hw{-1};
    std::atomic<double> _commit_latency_avg{std::numeric_limits<double>::quiet_NaN()};
    std::atomic<double> _commit_latency_max{std::numeric_limits<double>::quiet_NaN()};
    raft::raft_time _latency_published_at{};
    bool _latency_published_leading = false;
    raft::raft_epoch _controller_epoch{-1};
};

}  // namespace samsa::server::quorum
