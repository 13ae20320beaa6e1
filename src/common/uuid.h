#pragma once
// Kafka's Uuid: 16 bytes on the wire (two big-endian longs); printed as
// URL-safe base64 without padding (22 characters), as Kafka prints topic ids and
// cluster ids. The all-zero uuid means "no id".
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace samsa {

struct uuid {
    std::array<uint8_t, 16> data{};

    bool is_zero() const;
    std::string to_string() const;
    static std::optional<uuid> parse(std::string_view base64url);
    // A random (version 4) uuid that, as Kafka requires, is neither zero nor
    // the reserved METADATA_TOPIC_ID, and whose string form does not start with '-'.
    static uuid random();

    auto operator<=>(const uuid&) const = default;
};

struct uuid_hash {
    size_t operator()(const uuid& u) const;
};

}  // namespace samsa
