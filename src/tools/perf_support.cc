#include "tools/perf_support.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>

namespace samsa::tools {

std::chrono::nanoseconds throughput_throttler::wait_before(uint64_t sent,
                                                           perf_clock::time_point now) const {
    if (_rate <= 0) {
        return std::chrono::nanoseconds(0);
    }
    auto due = _start + std::chrono::nanoseconds(int64_t(double(sent) * 1e9 / _rate));
    return due > now ? std::chrono::duration_cast<std::chrono::nanoseconds>(due - now)
                     : std::chrono::nanoseconds(0);
}

double perf_window::seconds(perf_clock::time_point now) const {
    return std::chrono::duration<double>(now - start).count();
}

std::string random_payload(size_t size) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> letter(0, 25);
    std::string out(size, 'A');
    for (auto& c : out) {
        c = char('A' + letter(rng));
    }
    return out;
}

std::string perf_date(std::chrono::system_clock::time_point t) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    std::time_t secs = std::time_t(ms / 1000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d:%03d", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, int(ms % 1000));
    return buf;
}

json_object& json_object::add(const std::string& key, double value) {
    char buf[64];
    if (!std::isfinite(value)) {
        std::snprintf(buf, sizeof buf, "null");
    } else {
        std::snprintf(buf, sizeof buf, "%.3f", value);
    }
    _fields.emplace_back(key, buf);
    return *this;
}

json_object& json_object::add(const std::string& key, int64_t value) {
    _fields.emplace_back(key, std::to_string(value));
    return *this;
}

json_object& json_object::add(const std::string& key, const std::string& value) {
    std::string quoted = "\"";
    for (char c : value) {
        if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            quoted += buf;
        } else {
            quoted += c;
        }
    }
    quoted += '"';
    _fields.emplace_back(key, quoted);
    return *this;
}

json_object& json_object::add(const std::string& key, const json_object& value) {
    _fields.emplace_back(key, value.str());
    return *this;
}

std::string json_object::str() const {
    std::string out = "{";
    for (size_t i = 0; i < _fields.size(); ++i) {
        out += (i ? ", \"" : "\"") + _fields[i].first + "\": " + _fields[i].second;
    }
    return out + "}";
}

json_object latency_json(const latency_histogram& h) {
    json_object o;
    o.add("avg", h.mean() / 1000.0)
        .add("max", double(h.max()) / 1000.0)
        .add("p50", double(h.value_at_percentile(50)) / 1000.0)
        .add("p95", double(h.value_at_percentile(95)) / 1000.0)
        .add("p99", double(h.value_at_percentile(99)) / 1000.0)
        .add("p99_9", double(h.value_at_percentile(99.9)) / 1000.0);
    return o;
}

}  // namespace samsa::tools
