#include "metadata/client_quota_alteration.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <set>

#include "common/client_quotas.h"
#include "common/error.h"

namespace samsa::metadata {

namespace {

using entry_data = protocol::alter_client_quotas_request::entry_data;

// Kafka's ClientQuotaEntity.toString, types in a stable order.
std::string describe(const entry_data& e) {
    std::string out = "ClientQuotaEntity(entries={";
    for (size_t i = 0; i < e.entity.size(); ++i) {
        out += fmt::format("{}{}={}", i ? ", " : "", e.entity[i].entity_type,
                           e.entity[i].entity_name.value_or("null"));
    }
    return out + "})";
}

// The entity as the image keys it, or the reason it is not one.
result<client_quota_entity> validate_entity(const entry_data& e) {
    if (e.entity.empty()) {
        return error(error_code::invalid_request, "Invalid empty client quota entity");
    }
    client_quota_entity entity;
    for (const auto& part : e.entity) {
        if (entity.contains(part.entity_type)) {
            return error(
                error_code::invalid_request,
                "Invalid empty client quota entity, duplicate entity entry " + part.entity_type);
        }
        if (!quota::is_entity_type(part.entity_type)) {
            return error(error_code::invalid_request,
                         "Unhandled client quota entity type: " + part.entity_type);
        }
        if (part.entity_name && part.entity_name->empty()) {
            return error(error_code::invalid_request,
                         fmt::format("Empty {} not supported", part.entity_type));
        }
        entity[part.entity_type] = part.entity_name;
    }
    const bool ip = entity.contains(std::string(quota::entity_ip));
    if (ip && entity.size() > 1) {
        // Kafka's message for any combination it does not take.
        return error(error_code::invalid_request, "Invalid empty client quota entity");
    }
    return entity;
}

// A set value: the key must be one of the entity's, and the value one that
// key takes.
std::optional<error> validate_value(const client_quota_entity& entity, const std::string& key,
                                    double value) {
    const bool ip = entity.contains(std::string(quota::entity_ip));
    const auto* k = quota::find_key(key);
    if (!k || k->for_ip != ip) {
        return error(error_code::invalid_request, "Invalid configuration key " + key);
    }
    if (!std::isfinite(value) || value <= 0) {
        return error(error_code::invalid_request,
                     fmt::format("Configuration {} must be a positive value", key));
    }
    if (k->whole && std::abs(std::round(value) - value) > 1e-6) {
        return error(error_code::invalid_request,
                     fmt::format("Configuration {} must be a Long value", key));
    }
    if (!k->enforced) {
        return error(error_code::invalid_request,
                     fmt::format("Quota {} is not enforced by this broker; only {}, {}, {} and "
                                 "{} are",
                                 key, quota::producer_byte_rate, quota::consumer_byte_rate,
                                 quota::request_percentage, quota::controller_mutation_rate));
    }
    return std::nullopt;
}

// The records one entry writes, or the error it fails with.
result<std::vector<metadata_record>> plan_entry(const metadata_image& image, const entry_data& e) {
    auto entity = validate_entity(e);
    if (!entity) {
        return entity.err();
    }
    std::set<std::string> keys;
    for (const auto& op : e.ops) {
        if (!keys.insert(op.key).second) {
            return error(error_code::invalid_request,
                         fmt::format("Duplicate quota key {} not updating quota for this entity {}",
                                     op.key, describe(e)));
        }
    }
    static const std::map<std::string, double> none;
    auto held = image.client_quotas.find(*entity);
    const auto& current = held == image.client_quotas.end() ? none : held->second;
    std::vector<metadata_record> records;
    for (const auto& op : e.ops) {
        if (!op.remove) {
            if (auto bad = validate_value(*entity, op.key, op.value)) {
                return std::move(*bad);
            }
        }
        auto now = current.find(op.key);
        const bool changes =
            op.remove ? now != current.end() : now == current.end() || now->second != op.value;
        if (!changes) {
            continue;  // Kafka writes only what changes
        }
        protocol::client_quota_record r;
        for (const auto& [type, name] : *entity) {
            auto& d = r.entity.emplace_back();
            d.entity_type = type;
            d.entity_name = name;
        }
        r.key = op.key;
        r.value = op.remove ? 0.0 : op.value;
        r.remove = op.remove;
        records.emplace_back(std::move(r));
    }
    return records;
}

}  // namespace

controller_plan<protocol::alter_client_quotas_response> plan_alter_client_quotas(
    const controller_state& state, const protocol::alter_client_quotas_request& request) {
    controller_plan<protocol::alter_client_quotas_response> plan;
    std::set<client_quota_entity> seen;
    for (const auto& e : request.entries) {
        auto& out = plan.response.entries.emplace_back();
        for (const auto& part : e.entity) {
            auto& d = out.entity.emplace_back();
            d.entity_type = part.entity_type;
            d.entity_name = part.entity_name;
        }
        out.error_message = std::nullopt;
        auto fail = [&](const error& err) {
            out.error_code = to_wire(err.code);
            out.error_message = err.message;
        };
        client_quota_entity key;
        for (const auto& part : e.entity) {
            key[part.entity_type] = part.entity_name;
        }
        if (!seen.insert(key).second) {
            fail(error(error_code::invalid_request, "Ignoring duplicate entity " + describe(e)));
            continue;
        }
        auto records = plan_entry(state.image, e);
        if (!records) {
            fail(records.err());
            continue;
        }
        if (!request.validate_only) {
            for (auto& r : *records) {
                plan.records.push_back(std::move(r));
            }
        }
    }
    return plan;
}

}  // namespace samsa::metadata
