#include "storage/segment_name.h"

#include <cstdio>

namespace samsa::storage {

std::string offset_file_stem(int64_t offset) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%020lld", static_cast<long long>(offset));
    return buf;
}

std::string segment_file_name(int64_t base_offset, std::string_view suffix) {
    std::string s = offset_file_stem(base_offset);
    s.append(suffix);
    return s;
}

std::optional<int64_t> parse_segment_file_name(std::string_view name, std::string_view suffix) {
    if (name.size() != 20 + suffix.size() || name.substr(20) != suffix) {
        return std::nullopt;
    }
    int64_t v = 0;
    for (size_t i = 0; i < 20; ++i) {
        char c = name[i];
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        int d = c - '0';
        if (v > (INT64_MAX - d) / 10) {
            return std::nullopt;
        }
        v = v * 10 + d;
    }
    return v;
}

}  // namespace samsa::storage
