#include "storage/partition_metadata.h"

#include "storage/file_util.h"

namespace samsa::storage {

status write_partition_metadata(const std::string& path, const uuid& topic_id) {
    return write_file_atomically(path, "version: 0\ntopic_id: " + topic_id.to_string() + "\n");
}

result<std::optional<uuid>> read_partition_metadata(const std::string& path) {
    bool missing = false;
    auto text = read_whole_file(path, &missing);
    if (!text) {
        return text.err();
    }
    if (missing) {
        return std::optional<uuid>();
    }
    auto bad = [&](const std::string& why) {
        return error{error_code::kafka_storage_error, "malformed " + path + ": " + why};
    };
    std::string_view rest = *text;
    auto next_line = [&]() {
        auto nl = rest.find('\n');
        std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        return line;
    };
    std::string_view version = next_line();
    std::string_view id = next_line();
    constexpr std::string_view version_prefix = "version: ";
    constexpr std::string_view id_prefix = "topic_id: ";
    if (version.substr(0, version_prefix.size()) != version_prefix) {
        return bad("first line is not 'version: <n>'");
    }
    if (version.substr(version_prefix.size()) != "0") {
        return bad("unsupported version '" + std::string(version.substr(version_prefix.size())) +
                   "'");
    }
    if (id.substr(0, id_prefix.size()) != id_prefix) {
        return bad("second line is not 'topic_id: <uuid>'");
    }
    auto u = uuid::parse(id.substr(id_prefix.size()));
    if (!u) {
        return bad("topic id '" + std::string(id.substr(id_prefix.size())) + "' is not a uuid");
    }
    return std::optional<uuid>(*u);
}

}  // namespace samsa::storage
