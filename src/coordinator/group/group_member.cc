#include "coordinator/group/group_member.h"

namespace samsa::coordinator {

group_member::group_member(std::string member_id, std::optional<std::string> group_instance_id,
                           std::string client_id, std::string client_host,
                           int32_t rebalance_timeout_ms, int32_t session_timeout_ms,
                           std::string protocol_type, std::vector<member_protocol> protocols)
    : _member_id(std::move(member_id)),
      _group_instance_id(std::move(group_instance_id)),
      _client_id(std::move(client_id)),
      _client_host(std::move(client_host)),
      _rebalance_timeout_ms(rebalance_timeout_ms),
      _session_timeout_ms(session_timeout_ms),
      _protocol_type(std::move(protocol_type)),
      _protocols(std::move(protocols)) {}

void group_member::update(std::vector<member_protocol> protocols, int32_t rebalance_timeout_ms,
                          int32_t session_timeout_ms) {
    _protocols = std::move(protocols);
    _rebalance_timeout_ms = rebalance_timeout_ms;
    _session_timeout_ms = session_timeout_ms;
}

std::set<std::string> group_member::protocol_names() const {
    std::set<std::string> out;
    for (const auto& p : _protocols) {
        out.insert(p.name);
    }
    return out;
}

const bytes* group_member::metadata(const std::string& protocol) const {
    for (const auto& p : _protocols) {
        if (p.name == protocol) {
            return &p.metadata;
        }
    }
    return nullptr;
}

bool group_member::matches(const std::vector<member_protocol>& protocols) const {
    return protocols == _protocols;
}

std::string group_member::vote(const std::set<std::string>& candidates) const {
    for (const auto& p : _protocols) {
        if (candidates.count(p.name)) {
            return p.name;
        }
    }
    return {};
}

bool group_member::complete_join(join_group_result r) {
    if (!_awaiting_join) {
        return false;
    }
    // Cleared before the call: the callback may lead back into the group.
    auto cb = std::move(_awaiting_join);
    _awaiting_join = nullptr;
    cb(std::move(r));
    return true;
}

bool group_member::complete_sync(sync_group_result r) {
    if (!_awaiting_sync) {
        return false;
    }
    auto cb = std::move(_awaiting_sync);
    _awaiting_sync = nullptr;
    cb(std::move(r));
    return true;
}

bool group_member::has_satisfied_heartbeat() const {
    if (is_new) {
        return heartbeat_satisfied;
    }
    if (is_awaiting_join() || is_awaiting_sync()) {
        return true;
    }
    return heartbeat_satisfied;
}

}  // namespace samsa::coordinator
