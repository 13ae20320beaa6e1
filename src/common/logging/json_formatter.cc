#include "common/logging/json_formatter.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include "common/logging/loggers.h"

namespace samsa::logging {

namespace {

bool key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

// The length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8_length(std::string_view s, size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t n = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) {
        return 0;
    }
    for (size_t k = 1; k < n; ++k) {
        if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) {
            return 0;
        }
    }
    return n;
}

// A JSON string: quotes, backslashes and control characters escaped, and any
// byte that is not valid UTF-8 (a client id can hold anything) replaced.
void append_string(std::string_view s, spdlog::memory_buf_t& out) {
    out.push_back('"');
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
        } else if (c == '\n') {
            fmt::format_to(std::back_inserter(out), "\\n");
        } else if (c == '\t') {
            fmt::format_to(std::back_inserter(out), "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if (size_t n = utf8_length(s, i); n > 0) {
            out.append(s.data() + i, s.data() + i + n);
            i += n - 1;
        } else {
            fmt::format_to(std::back_inserter(out), "\\ufffd");
        }
    }
    out.push_back('"');
}

bool fixed_field(std::string_view key) {
    return key == "time" || key == "level" || key == "logger" || key == "thread" ||
           key == "message";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> message_fields(std::string_view m) {
    std::vector<std::pair<std::string, std::string>> out;
    size_t i = 0;
    while (i < m.size()) {
        size_t k = i;
        while (k < m.size() && key_char(m[k])) {
            ++k;
        }
        if (k == i || k >= m.size() || m[k] != '=') {
            return {};
        }
        std::string key(m.substr(i, k - i));
        size_t v = k + 1;
        std::string value;
        if (v < m.size() && m[v] == '"') {
            // A quoted value ends at the quote that ends the word.
            size_t end = v + 1;
            while (end < m.size() &&
                   !(m[end] == '"' && (end + 1 == m.size() || m[end + 1] == ' '))) {
                ++end;
            }
            if (end >= m.size()) {
                return {};
            }
            value = std::string(m.substr(v + 1, end - v - 1));
            i = end + 1;
        } else {
            size_t end = m.find(' ', v);
            end = end == std::string_view::npos ? m.size() : end;
            value = std::string(m.substr(v, end - v));
            i = end;
        }
        out.emplace_back(std::move(key), std::move(value));
        if (i < m.size()) {
            if (m[i] != ' ') {
                return {};
            }
            ++i;
        }
    }
    return out;
}

void json_formatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
    using namespace std::chrono;
    const auto ms = duration_cast<milliseconds>(msg.time.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    gmtime_r(&secs, &utc);
    fmt::format_to(std::back_inserter(dest), "{{\"time\":\"{:%Y-%m-%dT%H:%M:%S}.{:03}Z\",", utc,
                   ms % 1000);
    fmt::format_to(std::back_inserter(dest), "\"level\":\"{}\",\"logger\":", level_name(msg.level));
    append_string(std::string_view(msg.logger_name.data(), msg.logger_name.size()), dest);
    fmt::format_to(std::back_inserter(dest), ",\"thread\":{},\"message\":", msg.thread_id);
    const std::string_view text(msg.payload.data(), msg.payload.size());
    append_string(text, dest);
    for (const auto& [key, value] : message_fields(text)) {
        if (fixed_field(key)) {
            continue;
        }
        dest.push_back(',');
        append_string(key, dest);
        dest.push_back(':');
        append_string(value, dest);
    }
    fmt::format_to(std::back_inserter(dest), "}}\n");
}

std::unique_ptr<spdlog::formatter> json_formatter::clone() const {
    return std::make_unique<json_formatter>();
}

}  // namespace samsa::logging
