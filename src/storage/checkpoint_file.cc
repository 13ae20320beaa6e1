#include "storage/checkpoint_file.h"

#include <charconv>

#include "storage/file_util.h"

namespace samsa::storage {

namespace {

error malformed(const std::string& path, size_t line_no, std::string what) {
    return error{error_code::kafka_storage_error, "malformed checkpoint file " + path + " line " +
                                                      std::to_string(line_no) + ": " + what};
}

std::vector<std::string> split_fields(std::string_view line) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            out.emplace_back(line.substr(start, i - start));
        }
    }
    return out;
}

}  // namespace

bool parse_int64(std::string_view s, int64_t* out) {
    if (s.empty()) {
        return false;
    }
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && p == s.data() + s.size();
}

status write_checkpoint(const std::string& path, int version,
                        const std::vector<std::vector<std::string>>& entries) {
    std::string text = std::to_string(version) + "\n" + std::to_string(entries.size()) + "\n";
    for (const auto& e : entries) {
        for (size_t i = 0; i < e.size(); ++i) {
            if (i) {
                text += ' ';
            }
            text += e[i];
        }
        text += '\n';
    }
    return write_file_atomically(path, text);
}

result<checkpoint_contents> read_checkpoint(const std::string& path, int expected_version,
                                            size_t fields_per_entry) {
    bool missing = false;
    auto text = read_whole_file(path, &missing);
    if (!text) {
        return text.err();
    }
    checkpoint_contents out;
    out.version = expected_version;
    if (missing) {
        return out;
    }
    std::vector<std::string_view> lines;
    std::string_view rest = *text;
    while (!rest.empty()) {
        auto nl = rest.find('\n');
        std::string_view line = rest.substr(0, nl);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        lines.push_back(line);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
    // Blank lines at the end (an editor's extra newline) are tolerated.
    while (!lines.empty() && lines.back().empty()) {
        lines.pop_back();
    }
    if (lines.size() < 2) {
        return malformed(path, lines.size() + 1, "missing version or count line");
    }
    int64_t version, count;
    if (!parse_int64(lines[0], &version)) {
        return malformed(path, 1, "version '" + std::string(lines[0]) + "' is not a number");
    }
    if (version != expected_version) {
        return malformed(path, 1,
                         "unsupported version " + std::to_string(version) + " (expected " +
                             std::to_string(expected_version) + ")");
    }
    if (!parse_int64(lines[1], &count) || count < 0) {
        return malformed(path, 2, "count '" + std::string(lines[1]) + "' is not a count");
    }
    if (size_t(count) != lines.size() - 2) {
        return malformed(path, 2,
                         "expected " + std::to_string(count) + " entries, found " +
                             std::to_string(lines.size() - 2));
    }
    out.version = int(version);
    for (size_t i = 2; i < lines.size(); ++i) {
        auto fields = split_fields(lines[i]);
        if (fields.size() != fields_per_entry) {
            return malformed(path, i + 1,
                             "'" + std::string(lines[i]) + "' does not have " +
                                 std::to_string(fields_per_entry) + " fields");
        }
        out.entries.push_back(std::move(fields));
    }
    return out;
}

status write_offset_checkpoint(const std::string& path, const offset_checkpoint& offsets) {
    std::vector<std::vector<std::string>> entries;
    entries.reserve(offsets.size());
    for (const auto& [tp, offset] : offsets) {
        entries.push_back({tp.topic, std::to_string(tp.partition), std::to_string(offset)});
    }
    return write_checkpoint(path, 0, entries);
}

result<offset_checkpoint> read_offset_checkpoint(const std::string& path) {
    auto c = read_checkpoint(path, 0, 3);
    if (!c) {
        return c.err();
    }
    offset_checkpoint out;
    size_t line = 3;
    for (const auto& e : c->entries) {
        int64_t partition, offset;
        if (!is_valid_topic_name(e[0]) || !parse_int64(e[1], &partition) || partition < 0 ||
            partition > INT32_MAX || !parse_int64(e[2], &offset)) {
            return malformed(path, line, "'" + e[0] + " " + e[1] + " " + e[2] + "'");
        }
        out[topic_partition{e[0], int32_t(partition)}] = offset;
        ++line;
    }
    return out;
}

}  // namespace samsa::storage
