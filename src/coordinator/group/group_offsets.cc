#include "coordinator/group/group_offsets.h"

namespace samsa::coordinator {

const offset_and_metadata* group_offsets::get(const storage::topic_partition& tp) const {
    auto it = _offsets.find(tp);
    return it == _offsets.end() ? nullptr : &it->second;
}

std::vector<storage::topic_partition> group_offsets::remove_topics(
    const std::set<std::string>& topics) {
    std::vector<storage::topic_partition> removed;
    for (auto it = _offsets.begin(); it != _offsets.end();) {
        if (topics.count(it->first.topic)) {
            removed.push_back(it->first);
            it = _offsets.erase(it);
        } else {
            ++it;
        }
    }
    return removed;
}

std::vector<storage::topic_partition> group_offsets::remove_expired(
    int64_t now_ms, int64_t retention_ms,
    const std::function<int64_t(const offset_and_metadata&)>& base_timestamp,
    const std::set<std::string>& keep_topics) {
    std::vector<storage::topic_partition> removed;
    for (auto it = _offsets.begin(); it != _offsets.end();) {
        const auto& om = it->second;
        bool expired = false;
        if (!keep_topics.count(it->first.topic)) {
            expired = om.expire_timestamp_ms ? now_ms >= *om.expire_timestamp_ms
                                             : now_ms - base_timestamp(om) >= retention_ms;
        }
        if (expired) {
            removed.push_back(it->first);
            it = _offsets.erase(it);
        } else {
            ++it;
        }
    }
    return removed;
}

}  // namespace samsa::coordinator
