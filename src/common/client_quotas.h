#pragma once
// Kafka's client quota vocabulary (KIP-546, QuotaConfigs): the entity types a
// quota is set on and the keys each takes. The controller validates against
// it, the broker enforces from it, the CLI names it.
#include <array>
#include <string_view>

namespace samsa::quota {

inline constexpr std::string_view entity_user = "user";
inline constexpr std::string_view entity_client_id = "client-id";
inline constexpr std::string_view entity_ip = "ip";

inline bool is_entity_type(std::string_view t) {
    return t == entity_user || t == entity_client_id || t == entity_ip;
}

inline constexpr std::string_view producer_byte_rate = "producer_byte_rate";
inline constexpr std::string_view consumer_byte_rate = "consumer_byte_rate";
inline constexpr std::string_view request_percentage = "request_percentage";
inline constexpr std::string_view controller_mutation_rate = "controller_mutation_rate";
inline constexpr std::string_view connection_creation_rate = "connection_creation_rate";

struct quota_key {
    std::string_view name;
    bool for_ip;    // ip entities take it; user and client-id entities the others
    bool whole;     // Kafka's LONG keys: the value must be a whole number
    bool enforced;  // Samsa acts on it (a key it would ignore is refused)
};

inline constexpr std::array<quota_key, 5> quota_keys = {{
    {producer_byte_rate, false, true, true},
    {consumer_byte_rate, false, true, true},
    {request_percentage, false, false, true},
    {controller_mutation_rate, false, false, true},
    {connection_creation_rate, true, true, false},
}};

inline const quota_key* find_key(std::string_view name) {
    for (const auto& k : quota_keys) {
        if (k.name == name) {
            return &k;
        }
    }
    return nullptr;
}

}  // namespace samsa::quota
