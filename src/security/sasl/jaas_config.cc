#include "security/sasl/jaas_config.h"

#include <cctype>
#include <optional>

namespace samsa::security::sasl {

namespace {

error bad(std::string what) {
    return error(error_code::invalid_config, "sasl.jaas.config: " + std::move(what));
}

class lexer {
  public:
    explicit lexer(std::string_view s) : _s(s) {}

    void skip_space() {
        while (_i < _s.size() && std::isspace(static_cast<unsigned char>(_s[_i]))) {
            ++_i;
        }
    }
    bool at_end() {
        skip_space();
        return _i >= _s.size();
    }
    bool peek(char c) {
        skip_space();
        return _i < _s.size() && _s[_i] == c;
    }
    void take() { ++_i; }
    // A bare word: letters, digits and . _ - $ (class names, flags, option names).
    std::string word() {
        skip_space();
        size_t start = _i;
        while (_i < _s.size()) {
            char c = _s[_i];
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
                c == '$') {
                ++_i;
            } else {
                break;
            }
        }
        return std::string(_s.substr(start, _i - start));
    }
    // A quoted value; nullopt when unterminated.
    std::optional<std::string> quoted() {
        ++_i;  // the opening quote
        std::string out;
        while (_i < _s.size()) {
            char c = _s[_i++];
            if (c == '"') {
                return out;
            }
            if (c == '\\' && _i < _s.size()) {
                c = _s[_i++];
            }
            out += c;
        }
        return std::nullopt;
    }

  private:
    std::string_view _s;
    size_t _i = 0;
};

}  // namespace

result<jaas_module> parse_jaas_config(std::string_view text) {
    lexer in(text);
    jaas_module m;
    m.login_module = in.word();
    if (m.login_module.empty()) {
        return bad("expected a login module class name");
    }
    m.flag = in.word();
    if (m.flag != "required" && m.flag != "requisite" && m.flag != "sufficient" &&
        m.flag != "optional") {
        return bad("expected a control flag (required, requisite, sufficient or optional) after " +
                   m.login_module);
    }
    while (!in.peek(';')) {
        if (in.at_end()) {
            return bad("the login module is not closed by ';'");
        }
        std::string name = in.word();
        if (name.empty() || !in.peek('=')) {
            return bad("expected name=value options");
        }
        in.take();
        std::string value;
        if (in.peek('"')) {
            auto q = in.quoted();
            if (!q) {
                return bad("the value of option " + name + " is not closed by '\"'");
            }
            value = std::move(*q);
        } else {
            value = in.word();
        }
        m.options[name] = std::move(value);
    }
    in.take();
    if (!in.at_end()) {
        return bad("exactly one login module is allowed");
    }
    return m;
}

}  // namespace samsa::security::sasl
