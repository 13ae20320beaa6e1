#pragma once
// The active controller (docs/architecture.md, "Metadata"; this node, in a one-node cluster): the
// only writer of cluster metadata. Every change runs on ONE dedicated thread
// with its own io_context, so changes are serialised without locks: an
// operation reads the current image, plans records (metadata/*_creation.h,
// topic_deletion.h, config_alteration.h), appends them as one batch through
// the metadata_log_writer (durable before it returns), applies them to a new
// image, publishes it to the metadata_cache and tells the listeners.
//
// Handlers on reactor threads simply co_await an operation; it hops to the
// controller thread and the handler resumes on its own reactor with the result:
//
//   auto resp = co_await submit(controller, std::move(create_topics_request));
//
// Listeners (the replica manager) subscribe before start(); they are called on
// the controller thread after each publish, and once by start() with the image
// replayed from the log (prev = an empty image). A listener must not block for
// long nor call back into the controller synchronously.
//
// Lifecycle: construct with the replayed image -> subscribe() -> start() ->
// register_broker_blocking() -> serve -> stop() (after the reactors stopped:
// an operation still in flight then never completes).
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <asio/steady_timer.hpp>
#include <chrono>
#include <map>
#include "common/config/broker_config.h"
#include "common/result.h"
#include "metadata/bootstrap_metadata.h"
#include "metadata/controller_plan.h"
#include "metadata/metadata_cache.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_log_writer.h"

#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "protocol/generated/alter_partition_request.h"
#include "protocol/generated/alter_partition_response.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"
#include "protocol/generated/broker_heartbeat_request.h"
#include "protocol/generated/broker_heartbeat_response.h"
#include "protocol/generated/broker_registration_request.h"
#include "protocol/generated/broker_registration_response.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"

namespace samsa::metadata {

using image_listener = std::function<void(std::shared_ptr<const metadata_image> prev,
                                          std::shared_ptr<const metadata_image> next)>;

// A block of producer ids [first, first + count).
struct producer_id_block {
    int64_t first_producer_id = 0;
    int32_t count = 0;
};

// Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE.
inline constexpr int32_t producer_id_block_size = 1000;

class controller {
  public:
    // `config` (the static broker config) and `log` must outlive the
    // controller. `replayed` is the image replayed from the log; the
    // controller publishes it to `cache` at start().
    //
    // `publishes`: whether the controller publishes the images it commits.
    // With a local log it does; with the Raft quorum the quorum publishes what
    // it commits (on every node) and the controller keeps only its working
    // image, which runs ahead of the committed one by the batches in flight,
    // and it acts only while this node leads (set_active).
    controller(const config::broker_config& config, metadata_log_writer& log, metadata_cache& cache,
               std::shared_ptr<const metadata_image> replayed, bool publishes = true);
    ~controller();
    controller(const controller&) = delete;
    controller& operator=(const controller&) = delete;

    void subscribe(image_listener listener);
    // Replaces the writer (before start()): the quorum's writer runs on this
    // controller's thread, so it is built after the controller.
    void set_log(metadata_log_writer& log) { _log = &log; }
    // What a fresh log starts with (before start(); bootstrap_metadata.h):
    // metadata.version unless told otherwise.
    void set_bootstrap_records(std::vector<metadata_record> records) {
        _bootstrap = std::move(records);
    }
    // Controller thread. This node became the active controller (`committed`:
    // the image of everything committed, which the working image restarts
    // from) or stopped being it (operations then answer NOT_CONTROLLER).
    void set_active(bool active, std::shared_ptr<const metadata_image> committed);
    bool active() const { return _active; }
    // Starts the controller thread and publishes the replayed image.
    void start();
    // Stops the thread (pending operations are dropped). Idempotent.
    void stop();

    asio::io_context::executor_type executor() { return _io.get_executor(); }
    // The controller thread's io_context (the metadata quorum runs on it too).
    asio::io_context& io() { return _io; }
    // The image as the controller last published it (any thread).
    std::shared_ptr<const metadata_image> image() const { return _cache.read(); }

    // ---- operations (any thread; each runs on the controller thread)

    // Records this broker (and, on a fresh log, the bootstrap records first),
    // unfenced at once: a one-node cluster has no one to catch up with. The
    // broker epoch is the offset of the RegisterBrokerRecord.
    asio::awaitable<result<int64_t>> register_broker(broker_registration registration);
    // For the server's start, from a thread that is not the controller's.
    result<int64_t> register_broker_blocking(broker_registration registration);

    // The admin APIs clients send (CreateTopics, DeleteTopics, ...): one
    // do_ operation each below, run with submit() (metadata/controller_apis.h).
    // The next block of producer ids (ProducerIdsRecord): for this node, or
    // for the broker `requester` (id, broker epoch) of a forwarded
    // AllocateProducerIds, which must be registered in that epoch
    // (STALE_BROKER_EPOCH otherwise, as Kafka's checkBrokerEpoch).
    asio::awaitable<result<producer_id_block>> allocate_producer_ids(
        int32_t count = producer_id_block_size,
        std::optional<std::pair<node_id, int64_t>> requester = std::nullopt);

    // Broker lifecycle (KIP-631; controller_brokers.cc). A broker registers
    // fenced; its heartbeats keep its session (broker.session.timeout.ms) and
    // unfence it once its metadata has caught up to its registration; a
    // session that expires fences it, moving its leaderships away; a
    // heartbeat with want_shut_down fences it the same way (controlled
    // shutdown) and answers should_shut_down.
    asio::awaitable<protocol::broker_registration_response> handle_broker_registration(
        protocol::broker_registration_request request);
    asio::awaitable<protocol::broker_heartbeat_response> handle_broker_heartbeat(
        protocol::broker_heartbeat_request request);
    // ElectLeaders (metadata/leader_election.h).
    asio::awaitable<protocol::elect_leaders_response> handle_elect_leaders(
        protocol::elect_leaders_request request, int16_t version);
    // AlterPartition from a partition leader (metadata/isr_change.h).
    asio::awaitable<protocol::alter_partition_response> handle_alter_partition(
        protocol::alter_partition_request request, int16_t version);

    // ---- the same, synchronously, on the calling thread (tests; and what the
    // awaitables run on the controller thread). Not thread-safe.
    result<int64_t> do_register_broker(const broker_registration& registration);
    protocol::create_topics_response do_create_topics(const protocol::create_topics_request& r);
    protocol::delete_topics_response do_delete_topics(const protocol::delete_topics_request& r);
    protocol::create_partitions_response do_create_partitions(
        const protocol::create_partitions_request& r);
    protocol::alter_configs_response do_alter_configs(const protocol::alter_configs_request& r);
    protocol::incremental_alter_configs_response do_incremental_alter_configs(
        const protocol::incremental_alter_configs_request& r);
    protocol::alter_user_scram_credentials_response do_alter_user_scram_credentials(
        const protocol::alter_user_scram_credentials_request& r);
    protocol::create_acls_response do_create_acls(const protocol::create_acls_request& r);
    protocol::alter_client_quotas_response do_alter_client_quotas(
        const protocol::alter_client_quotas_request& r);
    protocol::update_features_response do_update_features(
        const protocol::update_features_request& r);
    protocol::delete_acls_response do_delete_acls(const protocol::delete_acls_request& r);
    protocol::alter_partition_reassignments_response do_alter_partition_reassignments(
        const protocol::alter_partition_reassignments_request& r);
    // UnregisterBroker (KIP-631; kafka-cluster.sh unregister): the broker's
    // ISR memberships and leaderships go as when it is fenced, then its
    // registration (controller_brokers.cc).
    protocol::unregister_broker_response do_unregister_broker(
        const protocol::unregister_broker_request& r);
    result<producer_id_block> do_allocate_producer_ids(
        int32_t count, std::optional<std::pair<node_id, int64_t>> requester = std::nullopt);
    protocol::broker_registration_response do_broker_registration(
        const protocol::broker_registration_request& r);
    protocol::broker_heartbeat_response do_broker_heartbeat(
        const protocol::broker_heartbeat_request& r);
    // Fences the brokers whose session has expired (only while active).
    void check_broker_sessions();

    // Any thread: runs `fn()` on the controller thread and returns once it has.
    template <typename F>
    asio::awaitable<void> run_on_controller(F& fn) {
        co_await on_controller(fn);
    }
    // Any thread: runs `op()` on the controller thread, and resumes on the
    // caller's executor once what it appended has committed; when that
    // commit failed, `on_failure(error)` runs first. References only, as above.
    template <typename Op, typename Fail>
    asio::awaitable<void> run_committed(Op& op, Fail& on_failure) {
        auto fn = [this, &op, &on_failure](std::function<void()> finish) {
            op();
            after_commit(std::move(finish), [&on_failure](const error& e) { on_failure(e); });
        };
        co_await on_controller_async(fn);
    }

  private:
    // Runs `fn(finish)` on the controller thread; the caller resumes on its own
    // executor once `fn` calls `finish()` (at once, or when what it appended
    // has committed). Same rules for `fn` as on_controller.
    template <typename F>
    asio::awaitable<void> on_controller_async(F& fn) {
        co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(
            [this, &fn](auto handler) {
                asio::post(_io, [&fn, handler = std::move(handler)]() mutable {
                    auto h = std::make_shared<decltype(handler)>(std::move(handler));
                    fn(std::function<void()>([h]() {
                        auto ex = asio::get_associated_executor(*h);
                        asio::post(ex, std::move(*h));
                    }));
                });
            },
            asio::use_awaitable);
    }
    // After an operation: `finish()` once its batch (if it appended one) has
    // committed; `on_failure(error)` first when it could not commit.
    void after_commit(std::function<void()> finish, std::function<void(const error&)> on_failure);

    // Runs `fn()` on the controller thread; the caller resumes on its own
    // executor afterwards. `fn` is taken by reference and must capture only
    // references: GCC 12 destroys some temporaries of a co_await expression
    // twice, so nothing that owns memory is passed through one.
    template <typename F>
    asio::awaitable<void> on_controller(F& fn) {
        co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(
            [this, &fn](auto handler) {
                asio::post(_io, [&fn, handler = std::move(handler)]() mutable {
                    fn();
                    auto ex = asio::get_associated_executor(handler);
                    asio::post(ex, std::move(handler));
                });
            },
            asio::use_awaitable);
    }

    // Plans with the current image and commits what was planned; on a failed
    // commit every item of the response carries the error.
    template <typename Request, typename Plan>
    auto run(Plan&& plan_fn);

    // Appends `records` as one batch, applies them and publishes the image.
    result<int64_t> commit(std::vector<metadata_record> records);
    void publish(std::shared_ptr<const metadata_image> next);

    const config::broker_config& _config;
    metadata_log_writer* _log;
    metadata_cache& _cache;
    std::shared_ptr<const metadata_image> _image;  // controller thread only
    std::vector<image_listener> _listeners;
    const bool _publishes;
    bool _active;
    std::optional<int64_t> _last_append;  // the batch the running operation appended
    // Before the timers that wait on it: members are destroyed in reverse order.
    asio::io_context _io{1};
    // Broker sessions, kept by the active controller only (a new one starts
    // every broker's session afresh, as Kafka's does).
    struct broker_session {
        std::chrono::steady_clock::time_point deadline;
        // Heard from (a registration or a heartbeat) since this controller
        // became active, not only assumed: only such a live session refuses
        // another incarnation's registration (DUPLICATE_BROKER_REGISTRATION).
        bool heard = false;
    };
    std::map<node_id, broker_session> _sessions;
    // A registration or heartbeat of `broker_id`: its session starts again.
    void heard_from(node_id broker_id);
    std::unique_ptr<asio::steady_timer> _session_timer;
    void arm_session_timer();
    // auto.leader.rebalance.enable: preferred elections every
    // leader.imbalance.check.interval.seconds while active.
    std::unique_ptr<asio::steady_timer> _rebalance_timer;
    void arm_rebalance_timer();
    // unclean.leader.election.enable of a topic, as the image configures it.
    bool unclean_election_allowed(const std::string& topic) const;
    std::mt19937 _rng;
    std::vector<metadata_record> _bootstrap = default_bootstrap_records();
    std::unique_ptr<asio::executor_work_guard<asio::io_context::executor_type>> _work;
    std::thread _thread;
    bool _running = false;
};

}  // namespace samsa::metadata
