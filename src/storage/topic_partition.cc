#include "storage/topic_partition.h"

#include <algorithm>
#include <cstdint>
#include <random>

namespace samsa::storage {

std::string topic_partition::to_string() const {
    return topic + "-" + std::to_string(partition);
}

bool is_valid_topic_name(std::string_view topic) {
    if (topic.empty() || topic.size() > max_topic_name_length || topic == "." || topic == "..") {
        return false;
    }
    return std::all_of(topic.begin(), topic.end(), is_legal_topic_char);
}

std::optional<topic_partition> parse_partition_dir_name(std::string_view name) {
    auto dash = name.rfind('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) {
        return std::nullopt;
    }
    std::string_view digits = name.substr(dash + 1);
    if (digits.size() > 10) {
        return std::nullopt;
    }
    int64_t p = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        p = p * 10 + (c - '0');
    }
    if (p > INT32_MAX || (digits.size() > 1 && digits[0] == '0')) {
        return std::nullopt;
    }
    std::string_view topic = name.substr(0, dash);
    if (!is_valid_topic_name(topic)) {
        return std::nullopt;
    }
    return topic_partition{std::string(topic), int32_t(p)};
}

std::string delete_dir_name(const topic_partition& tp, std::string_view unique_id) {
    std::string suffix;
    suffix.append("-").append(std::to_string(tp.partition)).append(".");
    suffix.append(unique_id).append(delete_dir_suffix);
    size_t room = suffix.size() >= 255 ? 0 : 255 - suffix.size();
    std::string out = tp.topic.substr(0, std::min(room, tp.topic.size()));
    out.append(suffix);
    return out;
}

std::optional<std::string> future_dir_name(const topic_partition& tp, std::string_view unique_id) {
    std::string out = tp.to_string();
    out.append(".").append(unique_id).append(future_dir_suffix);
    if (out.size() > 255) {
        return std::nullopt;
    }
    return out;
}

std::optional<topic_partition> parse_future_dir_name(std::string_view name) {
    if (!name.ends_with(future_dir_suffix)) {
        return std::nullopt;
    }
    name.remove_suffix(future_dir_suffix.size());
    auto dot = name.rfind('.');
    if (dot == std::string_view::npos || name.size() - dot - 1 != 32) {
        return std::nullopt;
    }
    for (char c : name.substr(dot + 1)) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return std::nullopt;
        }
    }
    return parse_partition_dir_name(name.substr(0, dot));
}

std::string random_unique_id() {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    static constexpr char hex[] = "0123456789abcdef";
    std::string out(32, '0');
    uint64_t a = rng(), b = rng();
    for (int i = 0; i < 16; ++i) {
        out[size_t(i)] = hex[(a >> (4 * i)) & 15];
        out[size_t(16 + i)] = hex[(b >> (4 * i)) & 15];
    }
    return out;
}

}  // namespace samsa::storage
