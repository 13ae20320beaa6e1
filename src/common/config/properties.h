#pragma once
// Java `.properties` files, read the way java.util.Properties.load reads them (and
// therefore the way Kafka reads server.properties and meta.properties):
//
// * A logical line is one or more natural lines; a natural line ending in an odd
//   number of backslashes continues on the next one, whose leading whitespace is
//   dropped. A blank natural line ends a continued line.
// * Lines whose first non-whitespace character is '#' or '!' are comments (a
//   comment never continues). Blank lines are skipped. Whitespace is ' ', '\t', '\f'.
// * The key runs from the first non-whitespace character to the first unescaped
//   '=', ':' or whitespace. Whitespace around the separator is skipped, and a key
//   may be separated by whitespace alone ("key value"). Trailing whitespace of the
//   value is kept (Kafka's typed parsing trims it later).
// * Escapes in keys and values: \t \n \r \f, \uXXXX, and backslash before any other
//   character stands for that character ("\=" "\:" "\ " "\\" "\#").
// * A later definition of the same key replaces an earlier one.
//
// One deliberate difference: Java reads the bytes as ISO-8859-1; Samsa passes bytes
// through unchanged, so UTF-8 files keep their text, and \uXXXX escapes are written
// out as UTF-8.
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace samsa::config {

struct property {
    std::string key;
    std::string value;
    int line = 0;  // 1-based number of the natural line the logical line starts on
};

// The entries of one properties file, in file order, last definition of a key winning.
class properties {
  public:
    // Sets `key`; replaces an existing entry in place (keeps its position).
    void set(std::string key, std::string value, int line = 0);
    const property* find(std::string_view key) const;
    std::optional<std::string> get(std::string_view key) const;
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    const std::vector<property>& entries() const { return _entries; }
    size_t size() const { return _entries.size(); }
    bool empty() const { return _entries.empty(); }
    std::map<std::string, std::string> to_map() const;

  private:
    std::vector<property> _entries;
};

// Parses properties text. The only syntax error Java knows is a malformed \uXXXX
// escape; it is reported as invalid_config with "line N: ..." in the message.
result<properties> parse_properties(std::string_view text);

// Reads and parses a file; a missing or unreadable file is an error naming the path.
result<properties> load_properties_file(const std::filesystem::path& path);

// Writes entries in properties syntax (escaping what Java's Properties.store escapes
// among ASCII characters), after optional comment lines ("# " is prepended).
std::string format_properties(const std::vector<std::pair<std::string, std::string>>& entries,
                              const std::vector<std::string>& comments = {});

}  // namespace samsa::config
