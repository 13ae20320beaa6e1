#include "server/fetch/fetch_session_cache.h"

#include <algorithm>
#include <random>

namespace samsa::server::fetch {

session_partition* fetch_session::find(const session_partition_key& k) {
    for (auto& [key, p] : _partitions) {
        if (key == k) {
            return &p;
        }
    }
    return nullptr;
}

void fetch_session::upsert(const session_partition_key& k, const session_partition& p) {
    if (auto* existing = find(k)) {
        // Keep what was last sent: the client only changed its position/limits.
        existing->topic_id = p.topic_id;
        existing->fetch_offset = p.fetch_offset;
        existing->max_bytes = p.max_bytes;
        existing->current_leader_epoch = p.current_leader_epoch;
        existing->last_fetched_epoch = p.last_fetched_epoch;
        return;
    }
    _partitions.emplace_back(k, p);
}

void fetch_session::remove(const session_partition_key& k) {
    _partitions.erase(std::remove_if(_partitions.begin(), _partitions.end(),
                                     [&](const auto& e) { return e.first == k; }),
                      _partitions.end());
}

std::shared_ptr<fetch_session> fetch_session_cache::create(bool uses_topic_ids, int64_t now_ms) {
    std::lock_guard lock(_mutex);
    if (_sessions.size() >= _max_sessions) {
        // Evict the least recently used session (Kafka also prefers evicting
        // small, stale sessions; recency is the part that matters here).
        auto victim = _sessions.end();
        for (auto it = _sessions.begin(); it != _sessions.end(); ++it) {
            if (!it->second->_in_use &&
                (victim == _sessions.end() ||
                 it->second->_last_used_ms < victim->second->_last_used_ms)) {
                victim = it;
            }
        }
        if (victim == _sessions.end()) {
            return nullptr;
        }
        _sessions.erase(victim);
    }
    static thread_local std::mt19937 rng{std::random_device{}()};
    int32_t id = 0;
    do {
        id = int32_t(rng() & 0x7fffffff);
    } while (id == 0 || _sessions.count(id));
    auto s = std::make_shared<fetch_session>(id, uses_topic_ids);
    s->_last_used_ms = now_ms;
    s->_in_use = true;
    _sessions.emplace(id, s);
    return s;
}

result<std::shared_ptr<fetch_session>> fetch_session_cache::acquire(int32_t id, int32_t epoch,
                                                                    int64_t now_ms) {
    std::lock_guard lock(_mutex);
    auto it = _sessions.find(id);
    if (it == _sessions.end()) {
        return error_code::fetch_session_id_not_found;
    }
    auto& s = it->second;
    if (epoch != s->_next_epoch || s->_in_use) {
        return error_code::invalid_fetch_session_epoch;
    }
    s->_in_use = true;
    // Epochs wrap from INT32_MAX to 1 (0 and -1 are reserved).
    s->_next_epoch = s->_next_epoch == INT32_MAX ? 1 : s->_next_epoch + 1;
    s->_last_used_ms = now_ms;
    return s;
}

void fetch_session_cache::release(fetch_session& s) {
    std::lock_guard lock(_mutex);
    s._in_use = false;
}

void fetch_session_cache::remove(int32_t id) {
    std::lock_guard lock(_mutex);
    _sessions.erase(id);
}

size_t fetch_session_cache::size() const {
    std::lock_guard lock(_mutex);
    return _sessions.size();
}

}  // namespace samsa::server::fetch
