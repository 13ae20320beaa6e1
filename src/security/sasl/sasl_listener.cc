#include "security/sasl/sasl_listener.h"

#include <fmt/format.h>

#include <algorithm>

#include "security/sasl/jaas_config.h"
#include "security/sasl/plain_server.h"
#include "security/sasl/scram_server.h"

namespace samsa::security::sasl {

namespace {

constexpr std::string_view plain_module = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr std::string_view scram_module = "org.apache.kafka.common.security.scram.ScramLoginModule";

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        c = char(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

}  // namespace

bool sasl_listener_config::enabled(std::string_view mechanism) const {
    return std::find(mechanisms.begin(), mechanisms.end(), mechanism) != mechanisms.end();
}

std::unique_ptr<sasl_server> sasl_listener_config::new_server(std::string_view mechanism,
                                                              const scram_users& scram_users,
                                                              bool reauthentication) const {
    if (!enabled(mechanism)) {
        return nullptr;
    }
    if (mechanism == "PLAIN") {
        return std::make_unique<plain_server>(plain_users);
    }
    if (auto m = scram_mechanism_named(mechanism); m != scram_mechanism::unknown) {
        return std::make_unique<scram_server>(
            m, [m, scram_users](const std::string& user) { return scram_users(m, user); },
            std::nullopt, reauthentication);
    }
    return nullptr;
}

result<std::shared_ptr<const sasl_listener_config>> sasl_config_for(
    const config::config_set& values, const std::string& listener) {
    auto c = std::make_shared<sasl_listener_config>();
    c->listener = listener;
    auto fail = [&](std::string what) {
        return error(error_code::invalid_config,
                     fmt::format("listener {} (SASL): {}", listener, std::move(what)));
    };
    if (const auto* l = std::get_if<config::list_value>(
            values.listener_value(listener, "sasl.enabled.mechanisms"))) {
        c->mechanisms = *l;
    }
    if (c->mechanisms.empty()) {
        return fail("sasl.enabled.mechanisms is empty");
    }
    for (const auto& m : c->mechanisms) {
        const bool scram = scram_mechanism_named(m) != scram_mechanism::unknown;
        if (m != "PLAIN" && !scram) {
            return fail(fmt::format(
                "sasl.enabled.mechanisms: {} is not served by this broker; "
                "set listener.name.{}.sasl.enabled.mechanisms to PLAIN, SCRAM-SHA-256 or "
                "SCRAM-SHA-512",
                m, lower(listener)));
        }
        const std::string reauth_key = lower(m) + ".connections.max.reauth.ms";
        // The mechanism's own setting on this listener, else the broker's.
        const config::config_value* reauth = values.listener_raw(listener, reauth_key)
                                                 ? values.listener_value(listener, reauth_key)
                                                 : &values.get("connections.max.reauth.ms");
        if (const auto* ms = std::get_if<int64_t>(reauth)) {
            c->max_reauth_ms[m] = *ms;
        }
        const std::string key = lower(m) + ".sasl.jaas.config";
        auto jaas = values.listener_raw(listener, key);
        if (scram) {
            // The users are metadata; a login module, if given, must be SCRAM's.
            if (jaas) {
                auto module = parse_jaas_config(*jaas);
                if (!module) {
                    return fail(fmt::format("listener.name.{}.{}: {}", lower(listener), key,
                                            module.err().message));
                }
                if (module->login_module != scram_module) {
                    return fail(fmt::format("listener.name.{}.{}: {} needs {}, not {}",
                                            lower(listener), key, m, scram_module,
                                            module->login_module));
                }
            }
            continue;
        }
        if (!jaas) {
            return fail(
                fmt::format("{} needs listener.name.{}.{} (a {} with user_<name>=\"<password>\" "
                            "options)",
                            m, lower(listener), key, plain_module));
        }
        auto module = parse_jaas_config(*jaas);
        if (!module) {
            return fail(
                fmt::format("listener.name.{}.{}: {}", lower(listener), key, module.err().message));
        }
        if (module->login_module != plain_module) {
            return fail(fmt::format("listener.name.{}.{}: PLAIN needs {}, not {}", lower(listener),
                                    key, plain_module, module->login_module));
        }
        for (const auto& [name, value] : module->options) {
            if (name.rfind("user_", 0) == 0 && name.size() > 5) {
                c->plain_users[name.substr(5)] = value;
            }
        }
        if (c->plain_users.empty()) {
            return fail(
                fmt::format("listener.name.{}.{} names no user (user_<name>=\"<password>\")",
                            lower(listener), key));
        }
    }
    return std::shared_ptr<const sasl_listener_config>(std::move(c));
}

}  // namespace samsa::security::sasl
