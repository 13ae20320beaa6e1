#include "tools/client_quotas.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/client_quotas.h"
#include "net/blocking_call.h"
#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"
#include "protocol/generated/describe_client_quotas_request.h"
#include "protocol/generated/describe_client_quotas_response.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

result<net::blocking_target> target(const client_options& opts) {
    return bootstrap_target(opts, "samsa-configs");
}

// kafka-configs.sh's names: "user-principal 'alice', client-id 'c1'", "the
// default client-id".
template <typename Entity>
std::string describe_entity(const Entity& parts) {
    std::string out;
    for (const auto& p : parts) {
        const std::string type =
            p.entity_type == quota::entity_user ? "user-principal" : p.entity_type;
        out += out.empty() ? "" : ", ";
        out += p.entity_name ? type + " '" + *p.entity_name + "'" : "the default " + type;
    }
    return out;
}

}  // namespace

bool is_client_quota_key(const std::string& key) {
    return quota::find_key(key) != nullptr;
}

std::string java_double(double v) {
    if (v == 0) {
        return "0.0";
    }
    if (!std::isfinite(v)) {
        return std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
    }
    char buf[64];
    const double a = std::abs(v);
    if (a >= 1e-3 && a < 1e7) {
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
        std::string s(buf, end);
        return s.find('.') == std::string::npos ? s + ".0" : s;
    }
    // d.dddE<exp>, the shortest digits that read back as v.
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, end);
    const auto e = s.find('e');
    std::string mantissa = s.substr(0, e);
    int exponent = std::stoi(s.substr(e + 1));
    if (mantissa.find('.') == std::string::npos) {
        mantissa += ".0";
    }
    return mantissa + "E" + std::to_string(exponent);
}

int describe_client_quotas(const client_options& opts, const std::vector<quota_component>& of) {
    auto to = target(opts);
    if (!to) {
        return fail(to.err());
    }
    protocol::describe_client_quotas_request req;
    for (const auto& c : of) {
        auto& comp = req.components.emplace_back();
        comp.entity_type = c.type;
        comp.match_type = c.any ? 2 : c.name ? 0 : 1;
        comp.match = c.any ? std::nullopt : c.name;
    }
    req.strict = true;
    auto resp = net::call_blocking<protocol::describe_client_quotas_response>(*to, req, 0);
    if (!resp) {
        return fail(resp.err());
    }
    if (resp->error_code != 0) {
        return fail(message_of(resp->error_code, resp->error_message));
    }
    for (const auto& e : resp->entries.value_or(decltype(resp->entries)::value_type{})) {
        std::string values;
        for (const auto& v : e.values) {
            values += (values.empty() ? "" : ", ") + v.key + "=" + java_double(v.value);
        }
        std::printf("Quota configs for %s are %s\n", describe_entity(e.entity).c_str(),
                    values.c_str());
    }
    return 0;
}

int alter_client_quotas(const client_options& opts, const std::vector<quota_component>& entity,
                        const property_list& adds, const std::vector<std::string>& deletes) {
    auto to = target(opts);
    if (!to) {
        return fail(to.err());
    }
    protocol::alter_client_quotas_request req;
    auto& entry = req.entries.emplace_back();
    for (const auto& c : entity) {
        auto& d = entry.entity.emplace_back();
        d.entity_type = c.type;
        d.entity_name = c.name;
    }
    for (const auto& [key, value] : adds) {
        double v = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || end != value.data() + value.size()) {
            return fail("Invalid config: " + key + " must be a number, got '" + value + "'");
        }
        auto& op = entry.ops.emplace_back();
        op.key = key;
        op.value = v;
    }
    for (const auto& key : deletes) {
        auto& op = entry.ops.emplace_back();
        op.key = key;
        op.remove = true;
    }
    auto resp = net::call_blocking<protocol::alter_client_quotas_response>(*to, req, 0);
    if (!resp) {
        return fail(resp.err());
    }
    for (const auto& e : resp->entries) {
        if (e.error_code != 0) {
            return fail(message_of(e.error_code, e.error_message));
        }
    }
    return 0;
}

}  // namespace samsa::tools
