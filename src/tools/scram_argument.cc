#include "tools/scram_argument.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>

#include "security/sasl/scram.h"

namespace samsa::tools {

namespace {

namespace sasl = security::sasl;

error bad(std::string message) {
    return error(error_code::invalid_request, std::move(message));
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

// "key=value" with the value's surrounding double quotes taken off.
result<std::pair<std::string, std::string>> component(std::string_view c) {
    const auto eq = c.find('=');
    if (eq == std::string_view::npos) {
        return bad("No equals sign found in SCRAM component: " + std::string(c));
    }
    std::string_view value = c.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
    }
    return std::pair{std::string(c.substr(0, eq)), std::string(value)};
}

}  // namespace

result<protocol::user_scram_credential_record> parse_scram_argument(const std::string& argument) {
    const std::string_view input = trim(argument);
    const auto eq = input.find('=');
    if (eq == std::string_view::npos) {
        return bad("Failed to find equals sign in SCRAM argument '" + std::string(input) + "'");
    }
    const std::string mechanism_name(input.substr(0, eq));
    const auto mechanism = sasl::scram_mechanism_named(mechanism_name);
    if (mechanism == sasl::scram_mechanism::unknown) {
        return bad("The add-scram mechanism " + mechanism_name + " is not supported.");
    }
    std::string_view config = input.substr(eq + 1);
    if (config.empty() || config.front() != '[') {
        return bad("Expected configuration string to start with [");
    }
    if (config.back() != ']') {
        return bad("Expected configuration string to end with ]");
    }
    config = config.substr(1, config.size() - 2);

    std::map<std::string, std::string> components;
    while (true) {
        const auto comma = config.find(',');
        auto c = component(config.substr(0, comma));
        if (!c) {
            return c.err();
        }
        components[c->first] = c->second;
        if (comma == std::string_view::npos) {
            break;
        }
        config.remove_prefix(comma + 1);
    }
    auto take = [&](const char* key) -> std::optional<std::string> {
        auto it = components.find(key);
        if (it == components.end()) {
            return std::nullopt;
        }
        std::string v = std::move(it->second);
        components.erase(it);
        return v;
    };

    protocol::user_scram_credential_record r;
    auto name = take("name");
    if (!name) {
        return bad("You must supply 'name' to add-scram");
    }
    r.name = *name;
    r.mechanism = int8_t(mechanism);

    std::optional<bytes> salt;
    if (auto s = take("salt")) {
        salt = sasl::base64_decode(*s);
        if (!salt) {
            return bad("Failed to decode given salt: " + *s);
        }
    }
    int32_t iterations = sasl::scram_min_iterations;
    if (auto it = take("iterations")) {
        const auto [end, ec] = std::from_chars(it->data(), it->data() + it->size(), iterations);
        if (ec != std::errc() || end != it->data() + it->size()) {
            return bad("Failed to parse iterations count: " + *it);
        }
    }
    auto password = take("password");
    auto salted_text = take("saltedpassword");
    std::optional<bytes> salted_password;
    if (!password) {
        if (!salted_text) {
            return bad("You must supply one of 'password' or 'saltedpassword' to add-scram");
        }
        if (!salt) {
            return bad("You must supply 'salt' with 'saltedpassword' to add-scram");
        }
        salted_password = sasl::base64_decode(*salted_text);
        if (!salted_password) {
            return bad("Failed to decode given saltedPassword: " + *salted_text);
        }
    }
    if (!components.empty()) {
        std::string names;
        for (const auto& [k, v] : components) {
            names += (names.empty() ? "" : ", ") + k;
        }
        return bad("Unknown SCRAM configurations: " + names);
    }
    // Kafka names the mechanism by its Java constant here: SCRAM_SHA_256.
    std::string shown(sasl::scram_mechanism_name(mechanism));
    std::replace(shown.begin(), shown.end(), '-', '_');
    if (iterations < sasl::scram_min_iterations) {
        return bad("The 'iterations' value must be >= " +
                   std::to_string(sasl::scram_min_iterations) + " for add-scram using " + shown);
    }
    if (iterations > sasl::scram_max_iterations) {
        return bad("The 'iterations' value must be <= " +
                   std::to_string(sasl::scram_max_iterations) + " for add-scram using " + shown);
    }
    if (!salt) {
        salt = sasl::scram_random_salt();
        if (!salt) {
            return error(error_code::unknown_server_error, "could not draw a random salt");
        }
    }
    if (!salted_password) {
        salted_password = sasl::scram_salted_password(mechanism, *password, *salt, iterations);
    }
    auto c = sasl::scram_credential_from_salted(mechanism, std::move(*salt), *salted_password,
                                                iterations);
    r.salt = std::move(c.salt);
    r.stored_key = std::move(c.stored_key);
    r.server_key = std::move(c.server_key);
    r.iterations = c.iterations;
    return r;
}

}  // namespace samsa::tools
