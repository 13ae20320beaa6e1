#include "coordinator/group/consumer_group.h"

namespace samsa::coordinator {

const char* consumer_group_state_name(consumer_group_state s) {
    switch (s) {
        case consumer_group_state::empty:
            return "Empty";
        case consumer_group_state::assigning:
            return "Assigning";
        case consumer_group_state::reconciling:
            return "Reconciling";
        case consumer_group_state::stable:
            return "Stable";
        case consumer_group_state::dead:
            return "Dead";
    }
    return "Dead";
}

consumer_group_state consumer_group::state() const {
    if (_dead) {
        return consumer_group_state::dead;
    }
    if (_members.empty()) {
        return consumer_group_state::empty;
    }
    if (_group_epoch > _assignment_epoch) {
        return consumer_group_state::assigning;
    }
    for (const auto& [id, m] : _members) {
        if (m.member_epoch != _assignment_epoch || m.state != member_state::stable) {
            return consumer_group_state::reconciling;
        }
    }
    return consumer_group_state::stable;
}

bool consumer_group::is_subscribed_to_topic(const std::string& topic) const {
    return _metadata.count(topic) > 0 || subscribed_topic_names().count(topic) > 0;
}

std::vector<storage::topic_partition> consumer_group::expire_offsets(int64_t now_ms,
                                                                     int64_t retention_ms) {
    std::set<std::string> keep;
    for (const auto& [topic, meta] : _metadata) {
        keep.insert(topic);
    }
    for (auto& t : subscribed_topic_names()) {
        keep.insert(t);
    }
    return offsets().remove_expired(
        now_ms, retention_ms, [](const offset_and_metadata& om) { return om.commit_timestamp_ms; },
        keep);
}

consumer_group_member* consumer_group::get(const std::string& member_id) {
    auto it = _members.find(member_id);
    return it == _members.end() ? nullptr : &it->second;
}

const consumer_group_member* consumer_group::get(const std::string& member_id) const {
    auto it = _members.find(member_id);
    return it == _members.end() ? nullptr : &it->second;
}

std::optional<std::string> consumer_group::static_member_id(const std::string& instance_id) const {
    auto it = _static_members.find(instance_id);
    if (it == _static_members.end()) {
        return std::nullopt;
    }
    return it->second;
}

consumer_group_member& consumer_group::update_member(consumer_group_member m) {
    auto it = _members.find(m.member_id);
    m.settle_assignment_epochs(it != _members.end() ? &it->second : nullptr);
    if (it != _members.end()) {
        remove_partition_epochs(it->second.assigned);
        remove_partition_epochs(it->second.pending_revocation);
        if (it->second.instance_id && it->second.instance_id != m.instance_id) {
            _static_members.erase(*it->second.instance_id);
        }
        if (!m.session_timer) {
            m.session_timer = std::move(it->second.session_timer);
        }
        if (!m.rebalance_timer) {
            m.rebalance_timer = std::move(it->second.rebalance_timer);
        }
        if (!m.join_timer) {
            m.join_timer = std::move(it->second.join_timer);
        }
        if (!m.sync_timer) {
            m.sync_timer = std::move(it->second.sync_timer);
        }
    }
    add_partition_epochs(m.assigned, m.member_epoch);
    add_partition_epochs(m.pending_revocation, m.member_epoch);
    if (m.instance_id) {
        _static_members[*m.instance_id] = m.member_id;
    }
    std::string id = m.member_id;
    auto& slot = _members[id];
    slot = std::move(m);
    return slot;
}

void consumer_group::drop_timers() {
    for (auto& [id, m] : _members) {
        m.session_timer.reset();
        m.rebalance_timer.reset();
        m.join_timer.reset();
        m.sync_timer.reset();
    }
}

void consumer_group::remove_member(const std::string& member_id) {
    auto it = _members.find(member_id);
    if (it == _members.end()) {
        return;
    }
    remove_partition_epochs(it->second.assigned);
    remove_partition_epochs(it->second.pending_revocation);
    if (it->second.instance_id) {
        auto s = _static_members.find(*it->second.instance_id);
        if (s != _static_members.end() && s->second == member_id) {
            _static_members.erase(s);
        }
    }
    _members.erase(it);
    _target.erase(member_id);
}

int32_t consumer_group::partition_epoch(const uuid& topic, int32_t partition) const {
    auto it = _partition_epochs.find({topic, partition});
    return it == _partition_epochs.end() ? -1 : it->second;
}

void consumer_group::add_partition_epochs(const topic_assignment& a, int32_t epoch) {
    for (const auto& [topic, parts] : a) {
        for (int32_t p : parts) {
            _partition_epochs[{topic, p}] = epoch;
        }
    }
}

void consumer_group::remove_partition_epochs(const topic_assignment& a) {
    for (const auto& [topic, parts] : a) {
        for (int32_t p : parts) {
            _partition_epochs.erase({topic, p});
        }
    }
}

const topic_assignment& consumer_group::target_of(const std::string& member_id) const {
    static const topic_assignment none;
    auto it = _target.find(member_id);
    return it == _target.end() ? none : it->second;
}

void consumer_group::set_target(const std::string& member_id, topic_assignment a) {
    _target[member_id] = std::move(a);
}

std::set<std::string> consumer_group::subscribed_topic_names() const {
    std::set<std::string> out;
    for (const auto& [id, m] : _members) {
        out.insert(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
    }
    return out;
}

std::set<std::string> consumer_group::subscribed_regexes() const {
    std::set<std::string> out;
    for (const auto& [id, m] : _members) {
        if (m.subscribed_topic_regex) {
            out.insert(*m.subscribed_topic_regex);
        }
    }
    return out;
}

std::set<uuid> consumer_group::subscribed_topic_ids(const consumer_group_member& m) const {
    std::set<uuid> out;
    auto add = [&](const std::string& name) {
        auto it = _metadata.find(name);
        if (it != _metadata.end()) {
            out.insert(it->second.id);
        }
    };
    for (const auto& name : m.subscribed_topic_names) {
        add(name);
    }
    if (m.subscribed_topic_regex) {
        auto r = resolved_regexes.find(*m.subscribed_topic_regex);
        if (r != resolved_regexes.end()) {
            for (const auto& name : r->second) {
                add(name);
            }
        }
    }
    return out;
}

std::optional<std::string> consumer_group::preferred_server_assignor() const {
    std::map<std::string, int> votes;
    for (const auto& [id, m] : _members) {
        if (m.server_assignor) {
            ++votes[*m.server_assignor];
        }
    }
    std::optional<std::string> best;
    int most = 0;
    for (const auto& [name, n] : votes) {
        if (n > most) {
            best = name;
            most = n;
        }
    }
    return best;
}

offset_commit_validation consumer_group::validate_offset_commit(
    const std::string& member_id, const std::optional<std::string>& instance_id,
    int32_t member_epoch, bool transactional, int16_t api_version) const {
    // Epoch -1: an admin client, or a consumer outside group management,
    // which may commit while the group has no members.
    if (member_epoch < 0 && _members.empty()) {
        return {};
    }
    if (transactional && member_epoch < 0 && member_id.empty() && !instance_id) {
        // TxnOffsetCommit need not name the member: checked only if it does.
        return {};
    }
    const consumer_group_member* m = get(member_id);
    if (!m) {
        return offset_commit_validation::refuse(error_code::unknown_member_id);
    }
    // KIP-848: before v9 OffsetCommit carries a generation, not a member
    // epoch, so a member of this protocol must not use it.
    if (!transactional && !m->uses_classic_protocol() &&
        api_version < first_member_epoch_offset_commit_version) {
        return offset_commit_validation::refuse(error_code::unsupported_version);
    }
    if (member_epoch == m->member_epoch) {
        return {};
    }
    // TxnOffsetCommit has no STALE_MEMBER_EPOCH to give, nor has a classic
    // member's generation.
    const error_code stale = transactional || m->uses_classic_protocol()
                                 ? error_code::illegal_generation
                                 : error_code::stale_member_epoch;
    if (m->uses_classic_protocol() || member_epoch > m->member_epoch) {
        return offset_commit_validation::refuse(stale);
    }
    // An older epoch (KIP-1251): the heartbeat that moved the member on may
    // not have reached it yet.
    offset_commit_validation v;
    v.older_epoch = member_epoch;
    v.assignment_epochs = m->assignment_epochs;
    v.stale = stale;
    return v;
}

error_code offset_commit_validation::check(const uuid& topic, int32_t partition) const {
    if (error != error_code::none) {
        return error;
    }
    if (!older_epoch) {
        return error_code::none;
    }
    auto it = assignment_epochs.find({topic, partition});
    return it != assignment_epochs.end() && it->second <= *older_epoch ? error_code::none : stale;
}

error_code consumer_group::validate_offset_fetch(const std::string& member_id,
                                                 int32_t member_epoch) const {
    if (member_id.empty() && member_epoch < 0) {
        return error_code::none;
    }
    const consumer_group_member* m = get(member_id);
    if (!m) {
        return error_code::unknown_member_id;
    }
    if (member_epoch == m->member_epoch) {
        return error_code::none;
    }
    return m->uses_classic_protocol() ? error_code::illegal_generation
                                      : error_code::stale_member_epoch;
}

size_t consumer_group::classic_member_count() const {
    size_t n = 0;
    for (const auto& [id, m] : _members) {
        n += m.uses_classic_protocol() ? 1 : 0;
    }
    return n;
}

bool consumer_group::supports_classic_protocols(
    const std::string& protocol_type, const std::vector<member_protocol>& protocols) const {
    if (protocol_type != "consumer") {
        return false;
    }
    if (_members.empty()) {
        return !protocols.empty();
    }
    const size_t classic = classic_member_count();
    for (const auto& p : protocols) {
        size_t supporting = 0;
        for (const auto& [id, m] : _members) {
            if (!m.classic) {
                continue;
            }
            for (const auto& q : m.classic->supported_protocols) {
                if (q.name == p.name) {
                    ++supporting;
                    break;
                }
            }
        }
        if (supporting == classic) {
            return true;
        }
    }
    return false;
}

bool consumer_group::all_members_use_classic_protocol_except(const std::string& member_id) const {
    const consumer_group_member* m = get(member_id);
    return m && !m->uses_classic_protocol() && classic_member_count() + 1 == _members.size();
}

bool consumer_group::waiting_on_unreleased_partition(const consumer_group_member& m) const {
    if (m.state != member_state::unreleased_partitions) {
        return false;
    }
    for (const auto& [topic, parts] : target_of(m.member_id)) {
        auto owned = m.assigned.find(topic);
        for (int32_t p : parts) {
            const bool has = owned != m.assigned.end() && owned->second.count(p) > 0;
            if (!has && partition_epoch(topic, p) != -1) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace samsa::coordinator
