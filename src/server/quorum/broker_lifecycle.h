#pragma once
// broker_lifecycle: this broker's side of KIP-631. It registers with the
// active controller (BrokerRegistration, fenced at first), then heartbeats
// (BrokerHeartbeat every broker.heartbeat.interval.ms, faster while fenced)
// with how far it has replayed the metadata log, until the controller unfences
// it; a STALE_BROKER_EPOCH (the controller lost the registration) makes it
// register again. On shutdown it asks to shut down (want_shut_down), so the
// controller moves its leaderships away first (controlled shutdown).
//
// Runs as one coroutine on the controller thread's executor.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <functional>

#include "cluster/leadership_lease.h"
#include "common/config/broker_config.h"
#include "common/result.h"
#include "protocol/generated/broker_heartbeat_response.h"
#include "protocol/generated/broker_registration_request.h"

namespace samsa::server::quorum {

class controller_frontend;
class metadata_quorum;

class broker_lifecycle {
  public:
    broker_lifecycle(const config::broker_config& cfg, controller_frontend& channel,
                     metadata_quorum& quorum, asio::any_io_executor ex,
                     protocol::broker_registration_request registration);

    void start();
    // Blocks the calling thread until the controller unfences this broker
    // and `visible()` holds (this node's own metadata shows it unfenced);
    // REQUEST_TIMED_OUT after `timeout` (initial.broker.registration.timeout.ms);
    // BROKER_NOT_AVAILABLE once `interrupted` (a shutdown signal) is set.
    status wait_until_unfenced(std::chrono::milliseconds timeout,
                               const std::atomic<bool>& interrupted,
                               const std::function<bool()>& visible) const;
    // Blocks until the controller agreed to the shutdown or `timeout` passed.
    void controlled_shutdown(std::chrono::milliseconds timeout);
    // Ends the loop (call before the executor stops).
    void stop();
    // Asked at every heartbeat: true makes the broker ask to be fenced, so the
    // controller moves its leaderships to other in-sync replicas (used when no
    // log dir takes writes any more, KIP-112). Set before start().
    void set_fence_wanted(std::function<bool()> wanted) { _fence_wanted = std::move(wanted); }
    // Kept by this loop from the controller's answers (cluster/
    // leadership_lease.h), enforced from then on. Set before start().
    void set_leadership_lease(cluster::leadership_lease& lease) {
        _lease = &lease;
        lease.enforce();
    }

    bool unfenced() const { return _unfenced.load(); }
    int64_t broker_epoch() const { return _epoch.load(); }

  private:
    asio::awaitable<void> run();
    // After each heartbeat: extends or revokes the lease, and logs when it
    // is lost or held again.
    void keep_lease(const protocol::broker_heartbeat_response* answer,
                    cluster::leadership_lease::clock::time_point sent);
    // Logs a change of the lease; `fenced`: the controller said so.
    void log_lease(bool fenced);

    const config::broker_config& _cfg;
    controller_frontend& _channel;
    metadata_quorum& _quorum;
    asio::any_io_executor _ex;
    protocol::broker_registration_request _registration;
    asio::steady_timer _timer;
    // Fires when the lease runs out, so that its loss is logged while the
    // heartbeat that did not come back is still waiting.
    asio::steady_timer _lease_timer;
    std::atomic<int64_t> _epoch{-1};
    std::atomic<bool> _unfenced{false};
    std::atomic<bool> _want_shut_down{false};
    std::atomic<bool> _shut_down_agreed{false};
    std::atomic<bool> _stopped{false};
    std::function<bool()> _fence_wanted;
    bool _fence_requested = false;       // loop only: logged once
    bool _refused_as_duplicate = false;  // loop only: logged once per streak
    cluster::leadership_lease* _lease = nullptr;
    bool _lease_held = false;  // loop only: what was logged last
};

}  // namespace samsa::server::quorum
