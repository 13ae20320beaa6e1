#include "common/config/principal_mapping_rules.h"

#include <algorithm>
#include <cctype>

namespace samsa::config {

namespace {

error invalid(std::string_view rule, std::string_view why) {
    return error{error_code::invalid_config,
                 "Invalid rule: `" + std::string(rule) +
                     "` in ssl.principal.mapping.rules: " + std::string(why)};
}

bool is_space(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// One slash-delimited part of a RULE, from `pos`: up to the next unescaped
// '/', with `\x` kept for the regex (pattern) or unescaped (replacement).
std::optional<std::string> read_part(std::string_view text, size_t& pos, bool unescape) {
    std::string out;
    while (pos < text.size()) {
        char c = text[pos];
        if (c == '/') {
            ++pos;
            return out;
        }
        if (c == '\\' && pos + 1 < text.size()) {
            if (!unescape || text[pos + 1] != '/') {
                out += c;
            }
            out += text[pos + 1];
            pos += 2;
            continue;
        }
        out += c;
        ++pos;
    }
    return std::nullopt;  // no closing '/'
}

}  // namespace

principal_mapping_rules::principal_mapping_rules() {
    _rules.push_back(rule{true, "DEFAULT", nullptr, {}, 0});
}

result<principal_mapping_rules> principal_mapping_rules::parse(std::string_view text) {
    principal_mapping_rules out;
    out._rules.clear();
    size_t pos = 0;
    for (;;) {
        while (pos < text.size() && is_space(text[pos])) {
            ++pos;
        }
        if (pos >= text.size()) {
            break;
        }
        if (text[pos] == ',') {  // an empty rule, ignored as Kafka does
            ++pos;
            continue;
        }
        const size_t start = pos;
        if (text.substr(pos).starts_with("DEFAULT")) {
            pos += 7;
            out._rules.push_back(rule{true, "DEFAULT", nullptr, {}, 0});
        } else if (text.substr(pos).starts_with("RULE:")) {
            pos += 5;
            auto pattern = read_part(text, pos, false);
            auto replacement = pattern ? read_part(text, pos, true) : std::nullopt;
            if (!pattern || !replacement) {
                return invalid(text.substr(start), "expected RULE:pattern/replacement/[LU]");
            }
            rule r;
            r.pattern_text = *pattern;
            try {
                r.pattern = std::make_shared<const std::regex>(*pattern, std::regex::ECMAScript);
            } catch (const std::regex_error& e) {
                return invalid(text.substr(start, pos - start), e.what());
            }
            r.replacement = *replacement;
            if (pos < text.size() && (text[pos] == 'L' || text[pos] == 'U')) {
                r.to_case = text[pos++];
            }
            out._rules.push_back(std::move(r));
        } else {
            const size_t comma = text.find(',', pos);
            return invalid(
                text.substr(start, comma == std::string_view::npos ? comma : comma - start),
                "expected DEFAULT or RULE:pattern/replacement/[LU]");
        }
        while (pos < text.size() && is_space(text[pos])) {
            ++pos;
        }
        if (pos < text.size()) {
            if (text[pos] != ',') {
                return invalid(text.substr(start), "unmatched text after the rule: `" +
                                                       std::string(text.substr(pos)) + "`");
            }
            ++pos;
        }
    }
    if (out._rules.empty()) {
        return error{error_code::invalid_config, "ssl.principal.mapping.rules has no rule"};
    }
    return out;
}

bool principal_mapping_rules::only_default() const {
    return !_rules.empty() && _rules.front().is_default;
}

std::optional<std::string> principal_mapping_rules::map(const std::string& subject) const {
    for (const auto& r : _rules) {
        if (r.is_default) {
            return subject;
        }
        if (subject.size() > k_max_subject) {
            return std::nullopt;
        }
        if (!std::regex_match(subject, *r.pattern)) {
            continue;
        }
        std::string name = std::regex_replace(subject, *r.pattern, r.replacement);
        if (r.to_case == 'L') {
            std::transform(name.begin(), name.end(), name.begin(),
                           [](unsigned char c) { return char(std::tolower(c)); });
        } else if (r.to_case == 'U') {
            std::transform(name.begin(), name.end(), name.begin(),
                           [](unsigned char c) { return char(std::toupper(c)); });
        }
        return name;
    }
    return std::nullopt;
}

}  // namespace samsa::config
