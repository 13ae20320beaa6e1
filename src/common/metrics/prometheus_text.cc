#include "common/metrics/prometheus_text.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

namespace samsa::metrics {

void histogram_totals::add(const latency_histogram& h) {
    for (size_t i = 0; i < buckets.size(); ++i) {
        buckets[i] += h.buckets[i].value();
    }
    sum_us += h.sum_us.value();
    count += h.count.value();
}

std::string escape_label_value(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '"':
                out += "\\\"";
                break;
            case '\n':
                out += "\\n";
                break;
            default:
                out += c;
        }
    }
    return out;
}

void prometheus_text::family(std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(std::back_inserter(_out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name,
                   type);
}

void prometheus_text::write_labels(const labels& l, std::string_view extra_name,
                                   std::string_view extra_value) {
    if (l.empty() && extra_name.empty()) {
        return;
    }
    _out += '{';
    bool first = true;
    for (const auto& [k, v] : l) {
        fmt::format_to(std::back_inserter(_out), "{}{}=\"{}\"", first ? "" : ",", k,
                       escape_label_value(v));
        first = false;
    }
    if (!extra_name.empty()) {
        fmt::format_to(std::back_inserter(_out), "{}{}=\"{}\"", first ? "" : ",", extra_name,
                       extra_value);
    }
    _out += '}';
}

void prometheus_text::sample(std::string_view name, const labels& l, double value) {
    _out += name;
    write_labels(l);
    // Counts print as integers (fmt's shortest form of 1e9 is "1e+09").
    if (std::isnan(value)) {
        _out += " NaN\n";  // the spelling of the text format
    } else if (std::isinf(value)) {
        _out += value > 0 ? " +Inf\n" : " -Inf\n";
    } else if (std::abs(value) < 9007199254740992.0 && value == std::trunc(value)) {
        fmt::format_to(std::back_inserter(_out), " {}\n", int64_t(value));
    } else {
        fmt::format_to(std::back_inserter(_out), " {}\n", value);
    }
}

void prometheus_text::histogram(std::string_view name, const labels& l, const histogram_totals& h) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < h.buckets.size(); ++i) {
        cumulative += h.buckets[i];
        const std::string le = i < k_bucket_ms.size() ? fmt::format("{}", k_bucket_ms[i]) : "+Inf";
        fmt::format_to(std::back_inserter(_out), "{}_bucket", name);
        write_labels(l, "le", le);
        fmt::format_to(std::back_inserter(_out), " {}\n", cumulative);
    }
    fmt::format_to(std::back_inserter(_out), "{}_sum", name);
    write_labels(l);
    fmt::format_to(std::back_inserter(_out), " {}\n", double(h.sum_us) / 1000.0);
    fmt::format_to(std::back_inserter(_out), "{}_count", name);
    write_labels(l);
    fmt::format_to(std::back_inserter(_out), " {}\n", h.count);
}

}  // namespace samsa::metrics
