#include "tools/record_formatter.h"

#include <algorithm>
#include <cctype>

namespace samsa::tools {

namespace {

bool truthy(std::string_view v) {
    std::string s(v);
    s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }),
            s.end());
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s == "true";
}

}  // namespace

std::string unescape_separator(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
            char c = text[++i];
            switch (c) {
                case 't':
                    out += '\t';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                default:
                    out += c;
                    break;
            }
        } else {
            out += text[i];
        }
    }
    return out;
}

result<record_formatter> record_formatter::from_properties(const property_list& props) {
    record_formatter f;
    for (const auto& [k, v] : props) {
        if (k == "print.timestamp") {
            f._print_timestamp = truthy(v);
        } else if (k == "print.partition") {
            f._print_partition = truthy(v);
        } else if (k == "print.offset") {
            f._print_offset = truthy(v);
        } else if (k == "print.headers") {
            f._print_headers = truthy(v);
        } else if (k == "print.key") {
            f._print_key = truthy(v);
        } else if (k == "print.value") {
            f._print_value = truthy(v);
        } else if (k == "key.separator") {
            f._key_separator = unescape_separator(v);
        } else if (k == "line.separator") {
            f._line_separator = unescape_separator(v);
        } else if (k == "headers.separator") {
            f._headers_separator = unescape_separator(v);
        } else if (k == "null.literal") {
            f._null_literal = v;
        } else {
            return tool_error("unknown formatter property '" + k +
                              "' (known: print.timestamp, print.partition, print.offset, "
                              "print.headers, print.key, print.value, key.separator, "
                              "line.separator, headers.separator, null.literal)");
        }
    }
    return f;
}

std::string record_formatter::format(const record_view& r) const {
    std::string out;
    // Each field is followed by key.separator when another field comes after it,
    // and the record by line.separator (only when the value is printed, as in Kafka).
    auto sep = [&](bool more) { out += more ? _key_separator : _line_separator; };
    if (_print_timestamp) {
        switch (r.ts_kind) {
            case timestamp_kind::create_time:
                out += "CreateTime:" + std::to_string(r.timestamp);
                break;
            case timestamp_kind::log_append_time:
                out += "LogAppendTime:" + std::to_string(r.timestamp);
                break;
            case timestamp_kind::none:
                out += "NO_TIMESTAMP";
                break;
        }
        sep(_print_partition || _print_offset || _print_headers || _print_key || _print_value);
    }
    if (_print_partition) {
        out += "Partition:" + std::to_string(r.partition);
        sep(_print_offset || _print_headers || _print_key || _print_value);
    }
    if (_print_offset) {
        out += "Offset:" + std::to_string(r.offset);
        sep(_print_headers || _print_key || _print_value);
    }
    if (_print_headers) {
        if (r.headers.empty()) {
            out += "NO_HEADERS";
        }
        for (size_t i = 0; i < r.headers.size(); ++i) {
            if (i > 0) {
                out += _headers_separator;
            }
            out += r.headers[i].first;
            out += ':';
            out += r.headers[i].second ? *r.headers[i].second : std::string_view(_null_literal);
        }
        sep(_print_key || _print_value);
    }
    if (_print_key) {
        out += r.key ? *r.key : std::string_view(_null_literal);
        sep(_print_value);
    }
    if (_print_value) {
        out += r.value ? *r.value : std::string_view(_null_literal);
        out += _line_separator;
    }
    return out;
}

}  // namespace samsa::tools
