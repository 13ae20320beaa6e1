#pragma once
// leadership_lease: whether this broker may still trust that the partitions
// its metadata says it leads have no other leader.
//
// A broker learns that the controller fenced it, and moved its leaderships
// to other replicas, only from the metadata log. Cut off from the controller
// it cannot read that log, so it goes on believing it leads the epochs it
// last saw. The controller fences a broker no earlier than
// broker.session.timeout.ms after it *received* the broker's last heartbeat
// (KIP-631). So while the last heartbeat the controller answered "not
// fenced" was *sent* less than that long ago, no other leader can exist for
// an epoch this broker still leads: the lease is held. After that, it may.
//
// What a broker without a lease changes (docs/faults.md, "A leader cut off
// from the controller"): a consumer fetching above this leader's log end has
// most likely read from the controller's newer leader; Kafka would answer
// OFFSET_OUT_OF_RANGE and the consumer would reset to auto.offset.reset and
// read again from there. Without the lease that fetch gets
// NOT_LEADER_OR_FOLLOWER instead, which sends the consumer to refresh its
// metadata. Everything else is served as before: what the broker holds below
// its high watermark was committed, and a controller quorum that is down must
// not stop a cluster that can still serve.
//
// Written by the heartbeat loop, read on the shards: atomics only.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace samsa::cluster {

class leadership_lease {
  public:
    using clock = std::chrono::steady_clock;

    // Until this is called every check passes: a broker without a heartbeat
    // loop (unit tests, tools) keeps Kafka's answers.
    void enforce() { _enforced.store(true); }
    bool enforced() const { return _enforced.load(); }

    // The controller answered "not fenced" to a heartbeat sent at `sent`.
    // A later answer to an earlier heartbeat never shortens the lease.
    void extend(clock::time_point sent, std::chrono::milliseconds session_timeout) {
        const int64_t until = (sent + session_timeout).time_since_epoch().count();
        int64_t current = _until.load();
        while (current < until && !_until.compare_exchange_weak(current, until)) {
        }
    }
    // The controller answered that this broker is fenced, or lost its
    // registration: no lease until an unfenced answer comes.
    void revoke() { _until.store(0); }

    bool held(clock::time_point now = clock::now()) const {
        return !_enforced.load() || now.time_since_epoch().count() < _until.load();
    }

  private:
    std::atomic<bool> _enforced{false};
    std::atomic<int64_t> _until{0};  // clock ticks since its epoch
};

}  // namespace samsa::cluster
