#include "cluster/replication/fetch_session_handler.h"

namespace samsa::cluster::replication {

namespace {

using fetch_topic = protocol::fetch_request::fetch_topic;

void add_partition(protocol::fetch_request& req, const partition_fetch_state& s) {
    if (req.topics.empty() || req.topics.back().topic_id != s.topic_id) {
        auto& t = req.topics.emplace_back();
        t.topic = s.topic;
        t.topic_id = s.topic_id;
    }
    auto& p = req.topics.back().partitions.emplace_back();
    p.partition = s.partition;
    p.current_leader_epoch = s.current_leader_epoch;
    p.fetch_offset = s.fetch_offset;
    p.last_fetched_epoch = s.last_fetched_epoch;
    p.log_start_offset = s.log_start_offset;
    p.partition_max_bytes = s.max_bytes;
}

}  // namespace

void fetch_session_handler::build(const std::vector<partition_fetch_state>& wanted,
                                  protocol::fetch_request& req) {
    req.topics.clear();
    req.forgotten_topics_data.clear();
    _pending.clear();
    for (const auto& s : wanted) {
        _pending[{s.topic_id, s.partition}] = s;
    }
    _pending_incremental = _next_epoch > 0;
    req.session_id = _session_id;
    req.session_epoch = _next_epoch;
    // Ordered by (topic id, partition), so one topic entry per topic.
    for (const auto& [k, s] : _pending) {
        if (_pending_incremental) {
            auto held = _session.find(k);
            if (held != _session.end() && held->second == s) {
                continue;  // the leader's session already fetches it so
            }
        }
        add_partition(req, s);
    }
    if (_pending_incremental) {
        for (const auto& [k, s] : _session) {
            if (_pending.count(k)) {
                continue;
            }
            if (req.forgotten_topics_data.empty() ||
                req.forgotten_topics_data.back().topic_id != s.topic_id) {
                auto& f = req.forgotten_topics_data.emplace_back();
                f.topic = s.topic;
                f.topic_id = s.topic_id;
            }
            req.forgotten_topics_data.back().partitions.push_back(s.partition);
        }
    }
}

void fetch_session_handler::handle_response(error_code error, int32_t session_id) {
    if (error == error_code::fetch_session_id_not_found) {
        // The leader forgot the session (eviction, restart): start a new one.
        _session_id = 0;
        _next_epoch = 0;
        _session.clear();
        return;
    }
    if (error != error_code::none) {
        // Whatever the leader holds is unknown: close it and start over.
        _next_epoch = 0;
        _session.clear();
        return;
    }
    if (!_pending_incremental) {
        // Full: a session when the leader made one, else full fetches on.
        _session_id = session_id;
        _next_epoch = session_id != 0 ? 1 : 0;
        _session = session_id != 0 ? std::move(_pending) : std::map<key, partition_fetch_state>{};
    } else {
        _next_epoch = following(_next_epoch);
        _session = std::move(_pending);
    }
    _pending.clear();
}

void fetch_session_handler::handle_error() {
    _next_epoch = 0;
    _session.clear();
    _pending.clear();
}

}  // namespace samsa::cluster::replication
