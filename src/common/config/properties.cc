#include "common/config/properties.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace samsa::config {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\f';
}
bool is_eol(char c) {
    return c == '\n' || c == '\r';
}

struct logical_line {
    std::string text;  // continuation backslashes removed, escapes still present
    int line = 0;
};

// Java's Properties.LineReader: splits the input into logical lines, dropping
// comments, blank lines and the backslash-newline of continuations.
class line_reader {
  public:
    explicit line_reader(std::string_view in) : _in(in) {}

    bool next(logical_line& out) {
        out.text.clear();
        bool skip_white = true;
        bool appended_line_begin = false;
        bool is_new_line = true;
        bool is_comment = false;
        bool preceding_backslash = false;
        while (_pos < _in.size()) {
            char c = _in[_pos++];
            if (skip_white) {
                if (is_blank(c)) {
                    continue;
                }
                if (!appended_line_begin && is_eol(c)) {
                    count_eol(c);
                    continue;
                }
                skip_white = false;
                appended_line_begin = false;
            }
            if (is_new_line) {
                is_new_line = false;
                out.line = _line;
                if (c == '#' || c == '!') {
                    is_comment = true;
                    continue;
                }
            }
            if (!is_eol(c)) {
                if (!is_comment) {
                    out.text += c;
                    preceding_backslash = c == '\\' ? !preceding_backslash : false;
                }
                continue;
            }
            count_eol(c);
            if (is_comment || out.text.empty()) {
                is_comment = false;
                is_new_line = true;
                skip_white = true;
                out.text.clear();
                continue;
            }
            if (preceding_backslash) {
                out.text.pop_back();
                skip_white = true;
                appended_line_begin = true;
                preceding_backslash = false;
                continue;
            }
            return true;
        }
        if (is_comment || out.text.empty()) {
            return false;
        }
        if (preceding_backslash) {
            out.text.pop_back();
        }
        return true;
    }

  private:
    // Counts physical lines; "\r\n" is one line end, consumed whole here.
    void count_eol(char c) {
        if (c == '\r' && _pos < _in.size() && _in[_pos] == '\n') {
            ++_pos;
        }
        ++_line;
    }

    std::string_view _in;
    size_t _pos = 0;
    int _line = 1;
};

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xc0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += char(0xe0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3f));
        out += char(0x80 | (cp & 0x3f));
    } else {
        out += char(0xf0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3f));
        out += char(0x80 | ((cp >> 6) & 0x3f));
        out += char(0x80 | (cp & 0x3f));
    }
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

// Java's Properties.loadConvert: resolves escapes. \uXXXX pairs that form a UTF-16
// surrogate pair become one code point; a lone surrogate becomes U+FFFD.
result<std::string> unescape(std::string_view s, int line) {
    std::string out;
    out.reserve(s.size());
    uint32_t pending_high = 0;
    auto flush_high = [&] {
        if (pending_high) {
            append_utf8(out, 0xfffd);
            pending_high = 0;
        }
    };
    size_t i = 0;
    while (i < s.size()) {
        char c = s[i++];
        if (c != '\\') {
            flush_high();
            out += c;
            continue;
        }
        if (i == s.size()) {
            break;  // a lone trailing backslash stands for nothing
        }
        c = s[i++];
        if (c == 'u') {
            if (s.size() - i < 4) {
                return error{error_code::invalid_config,
                             fmt::format("line {}: malformed \\uxxxx encoding", line)};
            }
            uint32_t v = 0;
            for (int k = 0; k < 4; ++k) {
                int d = hex_digit(s[i++]);
                if (d < 0) {
                    return error{error_code::invalid_config,
                                 fmt::format("line {}: malformed \\uxxxx encoding", line)};
                }
                v = v << 4 | uint32_t(d);
            }
            if (v >= 0xd800 && v <= 0xdbff) {
                flush_high();
                pending_high = v;
            } else if (v >= 0xdc00 && v <= 0xdfff) {
                if (pending_high) {
                    append_utf8(out, 0x10000 + ((pending_high - 0xd800) << 10) + (v - 0xdc00));
                    pending_high = 0;
                } else {
                    append_utf8(out, 0xfffd);
                }
            } else {
                flush_high();
                append_utf8(out, v);
            }
            continue;
        }
        flush_high();
        switch (c) {
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'n':
                out += '\n';
                break;
            case 'f':
                out += '\f';
                break;
            default:
                out += c;
        }
    }
    flush_high();
    return out;
}

}  // namespace

void properties::set(std::string key, std::string value, int line) {
    for (auto& e : _entries) {
        if (e.key == key) {
            e.value = std::move(value);
            e.line = line;
            return;
        }
    }
    _entries.push_back(property{std::move(key), std::move(value), line});
}

const property* properties::find(std::string_view key) const {
    for (const auto& e : _entries) {
        if (e.key == key) {
            return &e;
        }
    }
    return nullptr;
}

std::optional<std::string> properties::get(std::string_view key) const {
    const property* p = find(key);
    if (!p) {
        return std::nullopt;
    }
    return p->value;
}

std::map<std::string, std::string> properties::to_map() const {
    std::map<std::string, std::string> m;
    for (const auto& e : _entries) {
        m[e.key] = e.value;
    }
    return m;
}

result<properties> parse_properties(std::string_view text) {
    properties props;
    line_reader reader(text);
    logical_line ll;
    while (reader.next(ll)) {
        const std::string& s = ll.text;
        size_t key_len = 0;
        size_t value_start = s.size();
        bool has_sep = false;
        bool preceding_backslash = false;
        while (key_len < s.size()) {
            char c = s[key_len];
            if ((c == '=' || c == ':') && !preceding_backslash) {
                value_start = key_len + 1;
                has_sep = true;
                break;
            }
            if (is_blank(c) && !preceding_backslash) {
                value_start = key_len + 1;
                break;
            }
            preceding_backslash = c == '\\' ? !preceding_backslash : false;
            ++key_len;
        }
        while (value_start < s.size()) {
            char c = s[value_start];
            if (!is_blank(c)) {
                if (!has_sep && (c == '=' || c == ':')) {
                    has_sep = true;
                } else {
                    break;
                }
            }
            ++value_start;
        }
        auto key = unescape(std::string_view(s).substr(0, key_len), ll.line);
        if (!key) {
            return key.err();
        }
        auto value = unescape(std::string_view(s).substr(value_start), ll.line);
        if (!value) {
            return value.err();
        }
        props.set(std::move(*key), std::move(*value), ll.line);
    }
    return props;
}

result<properties> load_properties_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return error{error_code::invalid_config,
                     fmt::format("cannot read {}: {}", path.string(), std::strerror(errno))};
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) {
        return error{error_code::invalid_config,
                     fmt::format("cannot read {}: {}", path.string(), std::strerror(errno))};
    }
    auto props = parse_properties(buf.str());
    if (!props) {
        return error{props.err().code, fmt::format("{}: {}", path.string(), props.err().message)};
    }
    return props;
}

namespace {

void escape_into(std::string& out, std::string_view s, bool is_key) {
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        switch (c) {
            case ' ':
                if (i == 0 || is_key) {
                    out += '\\';
                }
                out += ' ';
                break;
            case '\t':
                out += "\\t";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\\':
            case '=':
            case ':':
            case '#':
            case '!':
                out += '\\';
                out += c;
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
                } else {
                    out += c;
                }
        }
    }
}

}  // namespace

std::string format_properties(const std::vector<std::pair<std::string, std::string>>& entries,
                              const std::vector<std::string>& comments) {
    std::string out;
    for (const auto& c : comments) {
        out += "# ";
        out += c;
        out += '\n';
    }
    for (const auto& [k, v] : entries) {
        escape_into(out, k, true);
        out += '=';
        escape_into(out, v, false);
        out += '\n';
    }
    return out;
}

}  // namespace samsa::config
