#include "server/connection_quotas.h"

#include <fmt/format.h>

#include <charconv>

namespace samsa::server {

result<std::map<std::string, int32_t>> parse_per_ip_overrides(const std::string& text) {
    std::map<std::string, int32_t> out;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t comma = text.find(',', pos);
        std::string entry =
            text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
        auto first = entry.find_first_not_of(" \t");
        if (first == std::string::npos) {
            continue;
        }
        entry = entry.substr(first, entry.find_last_not_of(" \t") - first + 1);
        auto colon = entry.rfind(':');
        int32_t n = -1;
        if (colon != std::string::npos && colon > 0) {
            auto digits = std::string_view(entry).substr(colon + 1);
            auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
            if (ec != std::errc() || p != digits.data() + digits.size()) {
                n = -1;
            }
        }
        if (n < 0) {
            return error(error_code::invalid_config,
                         fmt::format("Invalid value {} for configuration "
                                     "max.connections.per.ip.overrides: expected host:count",
                                     entry));
        }
        std::string host = entry.substr(0, colon);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
            host = host.substr(1, host.size() - 2);
        }
        out[host] = n;
    }
    return out;
}

int32_t connection_quotas::limit_for(const std::string& address) const {
    auto it = _limits.per_ip_overrides.find(address);
    return it != _limits.per_ip_overrides.end() ? it->second : _limits.max_connections_per_ip;
}

bool connection_quotas::try_acquire(const std::string& address, std::string& why) {
    std::lock_guard lock(_mutex);
    if (_total >= _limits.max_connections) {
        why = fmt::format("max.connections={} reached", _limits.max_connections);
        return false;
    }
    int32_t& mine = _per_ip[address];
    const int32_t limit = limit_for(address);
    if (mine >= limit) {
        why = fmt::format("{} connections from {} reached max.connections.per.ip{}", limit, address,
                          _limits.per_ip_overrides.count(address) ? " (override)" : "");
        if (mine == 0) {
            _per_ip.erase(address);
        }
        return false;
    }
    ++mine;
    ++_total;
    return true;
}

void connection_quotas::release(const std::string& address) {
    std::lock_guard lock(_mutex);
    auto it = _per_ip.find(address);
    if (it == _per_ip.end()) {
        return;
    }
    if (--it->second <= 0) {
        _per_ip.erase(it);
    }
    --_total;
}

int32_t connection_quotas::connections() const {
    std::lock_guard lock(_mutex);
    return _total;
}

int32_t connection_quotas::connections_from(const std::string& address) const {
    std::lock_guard lock(_mutex);
    auto it = _per_ip.find(address);
    return it == _per_ip.end() ? 0 : it->second;
}

}  // namespace samsa::server
