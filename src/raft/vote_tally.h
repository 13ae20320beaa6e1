#pragma once
// vote_tally: the votes of one election round, pre-vote (prospective) or
// standard (candidate). The replica votes for itself; a round is won with a
// majority of the voters granting, lost once a majority can no longer be
// reached. Only the answer to the request sent in this round counts: each
// voter's request correlation id is kept, and answers to other requests (late
// duplicates from an earlier round) are ignored.
#include <map>
#include <vector>

#include "raft/raft_types.h"

namespace samsa::raft {

class vote_tally {
  public:
    vote_tally(const std::vector<node_id>& voters, node_id self) : _voters(voters.size()) {
        _granted.push_back(self);
    }

    void sent(node_id voter, int32_t correlation_id) { _requests[voter] = correlation_id; }
    // True when this is the answer to the request of this round (first time).
    bool record(node_id voter, int32_t correlation_id, bool granted) {
        auto it = _requests.find(voter);
        if (it == _requests.end() || it->second != correlation_id) {
            return false;
        }
        _requests.erase(it);
        (granted ? _granted : _rejected).push_back(voter);
        return true;
    }

    bool won() const { return _granted.size() >= majority(); }
    bool lost() const { return _rejected.size() > _voters - majority(); }
    const std::vector<node_id>& granted() const { return _granted; }

  private:
    size_t majority() const { return _voters / 2 + 1; }

    size_t _voters;
    std::map<node_id, int32_t> _requests;
    std::vector<node_id> _granted;
    std::vector<node_id> _rejected;
};

}  // namespace samsa::raft
