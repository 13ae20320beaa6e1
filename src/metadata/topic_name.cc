#include "metadata/topic_name.h"

#include <fmt/format.h>

namespace samsa::metadata {

status validate_topic_name(std::string_view name) {
    if (name.empty()) {
        return error(error_code::invalid_topic_exception,
                     "Topic name is illegal, it can't be empty");
    }
    if (name == "." || name == "..") {
        return error(error_code::invalid_topic_exception, "Topic name cannot be \".\" or \"..\"");
    }
    if (name.size() > max_topic_name_length) {
        return error(error_code::invalid_topic_exception,
                     fmt::format("Topic name is illegal, it can't be longer than {} characters, "
                                 "topic name: {}",
                                 max_topic_name_length, name));
    }
    for (char c : name) {
        if (!storage::is_legal_topic_char(c)) {
            return error(error_code::invalid_topic_exception,
                         fmt::format("Topic name \"{}\" is illegal, it contains a character other "
                                     "than ASCII alphanumerics, '.', '_' and '-'",
                                     name));
        }
    }
    return {};
}

std::string unify_collision_chars(std::string_view name) {
    std::string s(name);
    for (auto& c : s) {
        if (c == '.') {
            c = '_';
        }
    }
    return s;
}

}  // namespace samsa::metadata
