#include "storage/leader_epoch_cache.h"

#include "storage/checkpoint_file.h"

namespace samsa::storage {

result<leader_epoch_cache> leader_epoch_cache::load(std::string path) {
    leader_epoch_cache cache(path);
    auto c = read_checkpoint(path, 0, 2);
    if (!c) {
        return c.err();
    }
    for (const auto& e : c->entries) {
        int64_t epoch, offset;
        if (!parse_int64(e[0], &epoch) || !parse_int64(e[1], &offset) || epoch < 0 ||
            epoch > INT32_MAX || offset < 0) {
            return error{error_code::kafka_storage_error,
                         "malformed leader epoch entry '" + e[0] + " " + e[1] + "' in " + path};
        }
        if (!cache._entries.empty() &&
            (epoch <= cache._entries.back().epoch || offset < cache._entries.back().start_offset)) {
            return error{error_code::kafka_storage_error,
                         "leader epoch entries not increasing in " + path};
        }
        cache._entries.push_back({int32_t(epoch), offset});
    }
    return cache;
}

std::optional<epoch_entry> leader_epoch_cache::latest() const {
    if (_entries.empty()) {
        return std::nullopt;
    }
    return _entries.back();
}

std::optional<int32_t> leader_epoch_cache::latest_epoch() const {
    if (_entries.empty()) {
        return std::nullopt;
    }
    return _entries.back().epoch;
}

status leader_epoch_cache::persist() const {
    std::vector<std::vector<std::string>> lines;
    lines.reserve(_entries.size());
    for (const auto& e : _entries) {
        lines.push_back({std::to_string(e.epoch), std::to_string(e.start_offset)});
    }
    return write_checkpoint(_path, 0, lines);
}

status leader_epoch_cache::assign(int32_t epoch, int64_t start_offset) {
    if (epoch < 0 || start_offset < 0) {
        return {};
    }
    if (!_entries.empty() && _entries.back().epoch == epoch &&
        _entries.back().start_offset <= start_offset) {
        return {};
    }
    while (!_entries.empty() &&
           (_entries.back().epoch >= epoch || _entries.back().start_offset >= start_offset)) {
        _entries.pop_back();
    }
    _entries.push_back({epoch, start_offset});
    return persist();
}

epoch_entry leader_epoch_cache::end_offset_for(int32_t epoch, int64_t log_end_offset) const {
    if (epoch == undefined_epoch || _entries.empty()) {
        return {undefined_epoch, undefined_epoch_offset};
    }
    if (_entries.back().epoch == epoch) {
        return {epoch, log_end_offset};
    }
    // First entry with a higher epoch.
    size_t higher = 0;
    while (higher < _entries.size() && _entries[higher].epoch <= epoch) {
        ++higher;
    }
    if (higher == _entries.size()) {
        return {undefined_epoch, undefined_epoch_offset};
    }
    if (higher == 0) {
        return {epoch, _entries[0].start_offset};
    }
    return {_entries[higher - 1].epoch, _entries[higher].start_offset};
}

std::optional<int32_t> leader_epoch_cache::epoch_for_offset(int64_t offset) const {
    std::optional<int32_t> out;
    for (const auto& e : _entries) {
        if (e.start_offset > offset) {
            break;
        }
        out = e.epoch;
    }
    return out;
}

status leader_epoch_cache::truncate_from_end(int64_t end_offset) {
    if (end_offset < 0 || _entries.empty() || _entries.back().start_offset < end_offset) {
        return {};
    }
    while (!_entries.empty() && _entries.back().start_offset >= end_offset) {
        _entries.pop_back();
    }
    return persist();
}

status leader_epoch_cache::truncate_from_start(int64_t start_offset) {
    size_t below = 0;
    while (below < _entries.size() && _entries[below].start_offset <= start_offset) {
        ++below;
    }
    if (below == 0) {
        return {};
    }
    epoch_entry kept{_entries[below - 1].epoch, start_offset};
    if (below == 1 && _entries[0] == kept) {
        return {};
    }
    _entries.erase(_entries.begin(), _entries.begin() + int64_t(below));
    _entries.insert(_entries.begin(), kept);
    return persist();
}

status leader_epoch_cache::clear() {
    _entries.clear();
    return persist();
}

}  // namespace samsa::storage
