#pragma once
// How `samsa consume` prints a record: Kafka's DefaultMessageFormatter and its
// --property switches (print.timestamp, print.partition, print.offset,
// print.headers, print.key, print.value, key.separator, line.separator,
// headers.separator, null.literal). Fields come in Kafka's order, separated by
// key.separator: "CreateTime:1700000000000<TAB>Partition:0<TAB>Offset:5<TAB>key<TAB>value".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "tools/client_options.h"

namespace samsa::tools {

enum class timestamp_kind { none, create_time, log_append_time };

// A consumed record, as the formatter needs it (views into the client's message).
struct record_view {
    int32_t partition = 0;
    int64_t offset = 0;
    timestamp_kind ts_kind = timestamp_kind::none;
    int64_t timestamp = -1;
    std::optional<std::string_view> key;    // nullopt: null key
    std::optional<std::string_view> value;  // nullopt: null value (tombstone)
    std::vector<std::pair<std::string_view, std::optional<std::string_view>>> headers;
};

class record_formatter {
  public:
    // Unknown property names are an error (a typo should not be silently ignored).
    static result<record_formatter> from_properties(const property_list& props);

    std::string format(const record_view& r) const;
    bool wants_headers() const { return _print_headers; }

  private:
    bool _print_timestamp = false;
    bool _print_partition = false;
    bool _print_offset = false;
    bool _print_headers = false;
    bool _print_key = false;
    bool _print_value = true;
    std::string _key_separator = "\t";
    std::string _line_separator = "\n";
    std::string _headers_separator = ",";
    std::string _null_literal = "null";
};

// Java's property values may spell separators as escapes: "\t", "\n", "\\".
std::string unescape_separator(std::string_view text);

}  // namespace samsa::tools
