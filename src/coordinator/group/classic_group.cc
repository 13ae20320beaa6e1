#include "coordinator/group/classic_group.h"

#include <algorithm>
#include <cassert>

#include "coordinator/group/consumer_protocol.h"

namespace samsa::coordinator {

join_group_result join_error(const std::string& member_id, error_code ec) {
    join_group_result r;
    r.error = ec;
    r.generation_id = -1;
    r.member_id = member_id;
    r.protocol_type = std::nullopt;
    r.protocol_name = std::nullopt;
    return r;
}

sync_group_result sync_error(error_code ec) {
    sync_group_result r;
    r.error = ec;
    return r;
}

classic_group::classic_group(std::string group_id, group_state initial, int64_t now_ms)
    : group(std::move(group_id)), _state(initial), _current_state_timestamp(now_ms) {}

std::string classic_group::state_name() const {
    return std::string(group_state_name(_state));
}

void classic_group::transition_to(group_state s, int64_t now_ms) {
    assert(is_valid_transition(_state, s) && "invalid group state transition");
    _state = s;
    _current_state_timestamp = now_ms;
}

void classic_group::restore(int32_t generation_id, std::optional<std::string> protocol_type,
                            std::optional<std::string> protocol_name,
                            std::optional<std::string> leader_id,
                            std::optional<int64_t> current_state_timestamp) {
    _generation_id = generation_id;
    _protocol_type = std::move(protocol_type);
    _protocol_name = std::move(protocol_name);
    _leader_id = std::move(leader_id);
    _current_state_timestamp = current_state_timestamp;
}

void classic_group::restore_member(std::unique_ptr<group_member> m) {
    if (m->group_instance_id()) {
        _static_members[*m->group_instance_id()] = m->member_id();
    }
    std::string id = m->member_id();
    _members[id] = std::move(m);
    compute_subscribed_topics();
}

group_member* classic_group::get(const std::string& member_id) {
    auto it = _members.find(member_id);
    return it == _members.end() ? nullptr : it->second.get();
}

void classic_group::add(std::unique_ptr<group_member> m, join_callback cb) {
    if (_members.empty()) {
        _protocol_type = m->protocol_type();
    }
    if (!_leader_id) {
        _leader_id = m->member_id();
    }
    if (m->group_instance_id()) {
        _static_members[*m->group_instance_id()] = m->member_id();
    }
    if (cb) {
        m->await_join(std::move(cb));
    }
    _pending_members.erase(m->member_id());
    std::string id = m->member_id();
    _members[id] = std::move(m);
}

void classic_group::remove(const std::string& member_id) {
    auto it = _members.find(member_id);
    if (it == _members.end()) {
        return;
    }
    std::unique_ptr<group_member> m = std::move(it->second);
    _members.erase(it);
    if (m->group_instance_id()) {
        auto s = _static_members.find(*m->group_instance_id());
        if (s != _static_members.end() && s->second == member_id) {
            _static_members.erase(s);
        }
    }
    _pending_sync_members.erase(member_id);
    if (is_leader(member_id)) {
        // Kafka picks any remaining member (seed inventory GRP-06).
        _leader_id =
            _members.empty() ? std::nullopt : std::optional<std::string>(_members.begin()->first);
    }
    // Never leave a request unanswered: its connection would wait forever.
    m->complete_join(join_error(member_id, error_code::unknown_member_id));
    m->complete_sync(sync_error(error_code::unknown_member_id));
}

std::optional<std::string> classic_group::static_member_id(
    const std::string& group_instance_id) const {
    auto it = _static_members.find(group_instance_id);
    return it == _static_members.end() ? std::nullopt : std::optional<std::string>(it->second);
}

bool classic_group::is_static_member_fenced(const std::optional<std::string>& group_instance_id,
                                            const std::string& member_id) const {
    if (!group_instance_id) {
        return false;
    }
    auto it = _static_members.find(*group_instance_id);
    return it != _static_members.end() && it->second != member_id;
}

group_member* classic_group::replace_static_member(const std::string& group_instance_id,
                                                   const std::string& old_id,
                                                   const std::string& new_id) {
    auto it = _members.find(old_id);
    assert(it != _members.end());
    std::unique_ptr<group_member> m = std::move(it->second);
    _members.erase(it);
    // The old instance's pending requests lose to the new instance.
    m->complete_join(join_error(old_id, error_code::fenced_instance_id));
    m->complete_sync(sync_error(error_code::fenced_instance_id));
    m->set_member_id(new_id);
    if (is_leader(old_id)) {
        _leader_id = new_id;
    }
    if (_pending_sync_members.erase(old_id)) {
        _pending_sync_members.insert(new_id);
    }
    _static_members[group_instance_id] = new_id;
    auto* raw = m.get();
    _members[new_id] = std::move(m);
    return raw;
}

bool classic_group::can_rebalance() const {
    return _state == group_state::stable || _state == group_state::completing_rebalance ||
           _state == group_state::empty;
}

size_t classic_group::num_awaiting_join() const {
    size_t n = 0;
    for (const auto& [id, m] : _members) {
        n += m->is_awaiting_join() ? 1 : 0;
    }
    return n;
}

bool classic_group::has_all_members_joined() const {
    return num_awaiting_join() == _members.size() && _pending_members.empty();
}

std::vector<std::string> classic_group::not_yet_rejoined_members() const {
    std::vector<std::string> out;
    for (const auto& [id, m] : _members) {
        if (!m->is_awaiting_join()) {
            out.push_back(id);
        }
    }
    return out;
}

int32_t classic_group::rebalance_timeout_ms() const {
    int32_t t = 0;
    for (const auto& [id, m] : _members) {
        t = std::max(t, m->rebalance_timeout_ms());
    }
    return t;
}

bool classic_group::maybe_elect_new_joined_leader() {
    if (!_leader_id) {
        return false;
    }
    auto it = _members.find(*_leader_id);
    if (it != _members.end() && it->second->is_awaiting_join()) {
        return true;
    }
    for (const auto& [id, m] : _members) {
        if (m->is_awaiting_join()) {
            _leader_id = id;
            return true;
        }
    }
    return false;
}

bool classic_group::supports_protocols(const std::string& protocol_type,
                                       const std::set<std::string>& protocols) const {
    if (_members.empty()) {
        return !protocol_type.empty() && !protocols.empty();
    }
    if (_protocol_type != protocol_type) {
        return false;
    }
    for (const auto& p : protocols) {
        bool all = true;
        for (const auto& [id, m] : _members) {
            if (!m->metadata(p)) {
                all = false;
                break;
            }
        }
        if (all) {
            return true;
        }
    }
    return false;
}

std::string classic_group::select_protocol() const {
    // The candidates: protocols every member supports.
    std::set<std::string> candidates;
    bool first = true;
    for (const auto& [id, m] : _members) {
        auto names = m->protocol_names();
        if (first) {
            candidates = std::move(names);
            first = false;
            continue;
        }
        std::set<std::string> both;
        std::set_intersection(candidates.begin(), candidates.end(), names.begin(), names.end(),
                              std::inserter(both, both.begin()));
        candidates = std::move(both);
    }
    std::map<std::string, size_t> votes;
    for (const auto& [id, m] : _members) {
        auto v = m->vote(candidates);
        if (!v.empty()) {
            ++votes[v];
        }
    }
    // Most votes wins; among equals, the one the leader prefers (Kafka leaves
    // ties to hash map order; any deterministic choice is as good).
    std::string best;
    size_t best_votes = 0;
    const group_member* leader = nullptr;
    if (_leader_id) {
        auto it = _members.find(*_leader_id);
        leader = it == _members.end() ? nullptr : it->second.get();
    }
    auto rank = [leader](const std::string& name) {
        if (!leader) {
            return size_t(0);
        }
        const auto& ps = leader->protocols();
        for (size_t i = 0; i < ps.size(); ++i) {
            if (ps[i].name == name) {
                return i;
            }
        }
        return ps.size();
    };
    for (const auto& [name, n] : votes) {
        if (n > best_votes || (n == best_votes && rank(name) < rank(best))) {
            best = name;
            best_votes = n;
        }
    }
    return best;
}

void classic_group::init_next_generation(int64_t now_ms) {
    ++_generation_id;
    if (!_members.empty()) {
        _protocol_name = select_protocol();
        compute_subscribed_topics();
        transition_to(group_state::completing_rebalance, now_ms);
    } else {
        _protocol_name = std::nullopt;
        compute_subscribed_topics();
        transition_to(group_state::empty, now_ms);
    }
    _pending_sync_members.clear();
}

join_group_result classic_group::join_response(const std::string& member_id) const {
    join_group_result r;
    r.generation_id = _generation_id;
    r.protocol_type = _protocol_type;
    r.protocol_name = _protocol_name;
    r.leader = _leader_id.value_or("");
    r.member_id = member_id;
    if (is_leader(member_id) && _protocol_name) {
        for (const auto& [id, m] : _members) {
            auto& out = r.members.emplace_back();
            out.member_id = id;
            out.group_instance_id = m->group_instance_id();
            if (const bytes* md = m->metadata(*_protocol_name)) {
                out.metadata = *md;
            }
        }
    }
    return r;
}

void classic_group::set_all_members_pending_sync() {
    _pending_sync_members.clear();
    for (const auto& [id, m] : _members) {
        _pending_sync_members.insert(id);
    }
}

bool classic_group::is_subscribed_to_topic(const std::string& topic) const {
    // Unknown subscriptions count as subscribed: never drop what may be used.
    return !_subscribed_topics || _subscribed_topics->count(topic) > 0;
}

void classic_group::compute_subscribed_topics() {
    _subscribed_topics.reset();
    if (_protocol_type != consumer_protocol_type) {
        return;
    }
    if (_members.empty()) {
        _subscribed_topics.emplace();
        return;
    }
    if (!_protocol_name) {
        return;
    }
    std::set<std::string> topics;
    for (const auto& [id, m] : _members) {
        const bytes* md = m->metadata(*_protocol_name);
        if (!md) {
            return;
        }
        auto sub = decode_consumer_subscription(*md);
        if (!sub) {
            return;
        }
        topics.insert(sub->topics.begin(), sub->topics.end());
    }
    _subscribed_topics = std::move(topics);
}

std::vector<storage::topic_partition> classic_group::expire_offsets(int64_t now_ms,
                                                                    int64_t retention_ms) {
    if (_protocol_type && is(group_state::empty)) {
        // No member left: count from the moment the group became empty.
        auto became_empty = _current_state_timestamp;
        return offsets().remove_expired(now_ms, retention_ms,
                                        [became_empty](const offset_and_metadata& om) {
                                            return became_empty.value_or(om.commit_timestamp_ms);
                                        });
    }
    if (_protocol_type == consumer_protocol_type && _subscribed_topics && is(group_state::stable)) {
        // Members exist: only the topics nobody subscribes to any more.
        return offsets().remove_expired(
            now_ms, retention_ms,
            [](const offset_and_metadata& om) { return om.commit_timestamp_ms; },
            *_subscribed_topics);
    }
    if (!_protocol_type) {
        // A group that only stores offsets (simple consumers).
        return offsets().remove_expired(now_ms, retention_ms, [](const offset_and_metadata& om) {
            return om.commit_timestamp_ms;
        });
    }
    return {};
}

}  // namespace samsa::coordinator
