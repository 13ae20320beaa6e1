#pragma once
// quorum_state: which role this replica plays in which epoch (Kafka's
// QuorumState), the only place roles change, and the place that persists the
// election state (raft/quorum_state_store.h) before a change takes effect.
//
// Legal transitions (KIP-595 roles, with KIP-996's prospective state):
//
//   unattached  -> unattached (higher epoch), voted (grants a vote), follower,
//                  prospective (election timeout; voters only)
//   voted       -> unattached (higher epoch), voted (higher epoch), follower,
//                  prospective (election timeout)
//   prospective -> unattached/voted (higher epoch), follower (the leader of its
//                  epoch or of a higher one), candidate (won the pre-vote),
//                  prospective (a new round)
//   candidate   -> unattached/voted (higher epoch), follower (same or higher
//                  epoch), leader (won the vote), prospective (lost, or timed
//                  out)
//   leader      -> unattached/voted/follower (higher epoch), resigned
//   follower    -> unattached/voted (higher epoch; observers: also the same
//                  epoch, to look for the leader again), follower (higher
//                  epoch), prospective (fetch timeout; voters only)
//   resigned    -> unattached/voted/follower (higher epoch), prospective
//                  (election timeout)
//
// Observers (replicas not among the voters) are only ever unattached or
// follower. Epochs never decrease. What is persisted: the epoch, the leader
// once known, the vote once cast — so unattached, voted, candidate, leader and
// follower write before they take effect; prospective and resigned change
// nothing that is persisted.
#include <set>
#include <string>
#include <variant>

#include "common/result.h"
#include "raft/candidate_state.h"
#include "raft/follower_state.h"
#include "raft/leader_state.h"
#include "raft/prospective_state.h"
#include "raft/quorum_state_store.h"
#include "raft/raft_config.h"
#include "raft/random_source.h"
#include "raft/resigned_state.h"
#include "raft/unattached_state.h"
#include "raft/voted_state.h"

namespace samsa::raft {

enum class role_kind { unattached, voted, prospective, candidate, leader, follower, resigned };
std::string_view role_name(role_kind k);

class quorum_state {
  public:
    quorum_state(const raft_config& config, quorum_state_store& store, random_source& random)
        : _config(config), _store(store), _random(random) {}

    // Reads the persisted election state and takes the role it implies: a
    // leader comes back resigned (its epoch cannot go on: it forgot what it
    // had not flushed), a candidate comes back as having voted for itself, a
    // follower comes back following. INCONSISTENT_VOTER_SET when the persisted
    // voters differ from the configured ones.
    status initialize(raft_epoch log_last_epoch, raft_time now);

    role_kind kind() const { return role_kind(_role.index()); }
    raft_epoch epoch() const;
    // The leader of the current epoch as far as this replica knows.
    leader_and_epoch leader() const;
    // The candidate this replica voted for in its epoch (itself as candidate).
    node_id voted() const;
    bool is_voter() const { return _config.local_is_voter(); }
    bool is(role_kind k) const { return kind() == k; }

    template <typename State>
    State& as() {
        return std::get<State>(_role);
    }
    template <typename State>
    const State& as() const {
        return std::get<State>(_role);
    }
    template <typename State>
    State* get_if() {
        return std::get_if<State>(&_role);
    }

    status to_unattached(raft_epoch epoch, raft_time now);
    status to_voted(raft_epoch epoch, node_id candidate, raft_time now);
    status to_follower(raft_epoch epoch, node_id leader, raft_time now);
    status to_prospective(raft_time now);
    status to_candidate(raft_time now);
    status to_leader(raft_offset epoch_start_offset, raft_time now);
    status to_resigned(std::vector<node_id> preferred_successors, raft_time now);

    // A fresh pre-vote round for a prospective replica.
    void new_prospective_round(raft_time now);
    // A random election timeout from now: [timeout, 2 x timeout).
    raft_time election_deadline(raft_time now);
    // A random backoff after a lost election: [retry backoff, max backoff].
    raft_time backoff_deadline(raft_time now);

  private:
    using role = std::variant<unattached_state, voted_state, prospective_state, candidate_state,
                              leader_state, follower_state, resigned_state>;

    status persist(raft_epoch epoch, node_id leader, node_id voted);
    status illegal(role_kind to) const;
    vote_tally new_tally() const { return vote_tally(_config.voters, _config.local_id); }

    const raft_config& _config;
    quorum_state_store& _store;
    random_source& _random;
    role _role{unattached_state(raft_epoch{0}, raft_time{})};
};

}  // namespace samsa::raft
