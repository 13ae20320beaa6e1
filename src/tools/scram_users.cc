#include "tools/scram_users.h"

#include <charconv>
#include <cstdio>
#include <map>

#include "net/blocking_call.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"
#include "protocol/generated/describe_user_scram_credentials_request.h"
#include "protocol/generated/describe_user_scram_credentials_response.h"
#include "security/sasl/scram.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

using security::sasl::scram_mechanism;

// Kafka's default iteration count for kafka-configs (ConfigCommand).
constexpr int32_t default_iterations = 4096;

result<net::blocking_target> target(const client_options& opts) {
    return bootstrap_target(opts, "samsa-configs");
}

result<scram_mechanism> mechanism_named(const std::string& name) {
    auto m = security::sasl::scram_mechanism_named(name);
    if (m == scram_mechanism::unknown) {
        return tool_error("Invalid config(s): " + name +
                          " (users take SCRAM-SHA-256, SCRAM-SHA-512 and client quota keys)");
    }
    return m;
}

// "iterations=8192,password=secret" (the brackets already removed).
result<std::pair<int32_t, std::string>> parse_credential(const std::string& mechanism,
                                                         const std::string& value) {
    int32_t iterations = default_iterations;
    std::optional<std::string> password;
    size_t start = 0;
    while (start <= value.size()) {
        size_t comma = value.find(',', start);
        const std::string item =
            value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
        if (key == "iterations") {
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), iterations);
            if (ec != std::errc() || end != v.data() + v.size()) {
                return tool_error(mechanism + ": iterations must be a number, got '" + v + "'");
            }
        } else if (key == "password") {
            // A password may hold commas: the rest of the value is the password.
            password = value.substr(start + eq + 1);
            break;
        } else {
            return tool_error(mechanism + ": expected [iterations=<n>,]password=<password>");
        }
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    if (!password || password->empty()) {
        return tool_error(mechanism + ": a password is required (password=<password>)");
    }
    return std::pair(iterations, std::move(*password));
}

}  // namespace

int describe_scram_users(const client_options& opts, const std::optional<std::string>& user) {
    auto to = target(opts);
    if (!to) {
        return fail(to.err());
    }
    protocol::describe_user_scram_credentials_request req;
    if (user) {
        req.users.emplace().emplace_back().name = *user;
    } else {
        req.users = std::nullopt;
    }
    auto resp = net::call_blocking<protocol::describe_user_scram_credentials_response>(*to, req, 0);
    if (!resp) {
        return fail(resp.err());
    }
    if (resp->error_code != 0) {
        return fail(
            resp->error_message.value_or(std::string(error_message(error_code(resp->error_code)))));
    }
    for (const auto& r : resp->results) {
        if (r.error_code == to_wire(error_code::resource_not_found) && user) {
            continue;  // Kafka prints nothing for a user without credentials
        }
        if (r.error_code != 0) {
            return fail(
                r.error_message.value_or(std::string(error_message(error_code(r.error_code)))));
        }
        std::string infos;
        for (const auto& c : r.credential_infos) {
            infos +=
                (infos.empty() ? "" : ", ") +
                std::string(security::sasl::scram_mechanism_name(scram_mechanism(c.mechanism))) +
                "=iterations=" + std::to_string(c.iterations);
        }
        std::printf("SCRAM credential configs for user-principal '%s' are %s\n", r.user.c_str(),
                    infos.c_str());
    }
    return 0;
}

int alter_scram_users(const client_options& opts, const std::string& user,
                      const property_list& adds, const std::vector<std::string>& deletes) {
    if (adds.empty() && deletes.empty()) {
        return fail("--alter needs --add-config or --delete-config");
    }
    auto to = target(opts);
    if (!to) {
        return fail(to.err());
    }
    protocol::alter_user_scram_credentials_request req;
    for (const auto& name : deletes) {
        auto m = mechanism_named(name);
        if (!m) {
            return fail(m.err());
        }
        auto& d = req.deletions.emplace_back();
        d.name = user;
        d.mechanism = int8_t(*m);
    }
    for (const auto& [name, value] : adds) {
        auto m = mechanism_named(name);
        if (!m) {
            return fail(m.err());
        }
        auto cred = parse_credential(name, value);
        if (!cred) {
            return fail(cred.err());
        }
        auto& u = req.upsertions.emplace_back();
        u.name = user;
        u.mechanism = int8_t(*m);
        u.iterations = cred->first;
        auto salt = security::sasl::scram_random_salt();
        if (!salt) {
            return fail("could not draw a random salt");
        }
        u.salt = std::move(*salt);
        u.salted_password =
            security::sasl::scram_salted_password(*m, cred->second, u.salt, u.iterations);
    }
    // The controller takes one alteration per user and request (a second is
    // DUPLICATE_RESOURCE, as in Kafka), so each goes on its own.
    std::vector<protocol::alter_user_scram_credentials_request> one_each;
    for (auto& d : req.deletions) {
        one_each.emplace_back().deletions.push_back(std::move(d));
    }
    for (auto& u : req.upsertions) {
        one_each.emplace_back().upsertions.push_back(std::move(u));
    }
    for (const auto& r1 : one_each) {
        auto resp = net::call_blocking<protocol::alter_user_scram_credentials_response>(*to, r1, 0);
        if (!resp) {
            return fail(resp.err());
        }
        for (const auto& r : resp->results) {
            if (r.error_code != 0) {
                return fail(
                    r.error_message.value_or(std::string(error_message(error_code(r.error_code)))));
            }
        }
    }
    std::printf("Completed updating config for user %s.\n", user.c_str());
    return 0;
}

}  // namespace samsa::tools
