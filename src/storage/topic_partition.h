#pragma once
// topic_partition: a partition's identity, and the names of its directory in a
// log dir, as Kafka names them:
//
//   <topic>-<partition>                        the live partition log
//   <topic>-<partition>.<32 hex>-delete        renamed for asynchronous deletion
//                                              (topic shortened to fit 255 bytes)
//   <topic>-<partition>.<32 hex>-future|-stray other Kafka states, skipped on load
//
// Topic names hold only [a-zA-Z0-9._-] (Kafka's legal characters), so the
// partition is what follows the last '-'.
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace samsa::storage {

struct topic_partition {
    std::string topic;
    int32_t partition = 0;

    auto operator<=>(const topic_partition&) const = default;
    // "<topic>-<partition>": the directory name and how Kafka prints it.
    std::string to_string() const;
};

struct topic_partition_hash {
    size_t operator()(const topic_partition& tp) const {
        return std::hash<std::string>()(tp.topic) * 31 + std::hash<int32_t>()(tp.partition);
    }
};

inline constexpr std::string_view delete_dir_suffix = "-delete";
inline constexpr std::string_view future_dir_suffix = "-future";
inline constexpr std::string_view stray_dir_suffix = "-stray";

// Kafka's topic name rules (org.apache.kafka.common.internals.Topic), the one
// place they are written down; metadata/topic_name.h adds the error messages.
inline constexpr size_t max_topic_name_length = 249;
constexpr bool is_legal_topic_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}
// Whether `topic` is a legal Kafka topic name (1-249 of [a-zA-Z0-9._-], not "." or "..").
bool is_valid_topic_name(std::string_view topic);
// The partition of a live partition directory name; nullopt for anything else
// (deletion/future/stray dirs, files, malformed names).
std::optional<topic_partition> parse_partition_dir_name(std::string_view name);
// "<topic>-<partition>.<unique_id>-delete", with the topic cut so the name fits
// in 255 bytes. `unique_id`: 32 hex digits (a uuid without dashes).
std::string delete_dir_name(const topic_partition& tp, std::string_view unique_id);
// "<topic>-<partition>.<unique_id>-future": a replica being moved into this
// log dir (AlterReplicaLogDirs). Not cut: nullopt when longer than 255 bytes
// (Kafka refuses such moves: "The topic name is too long.").
std::optional<std::string> future_dir_name(const topic_partition& tp, std::string_view unique_id);
// The partition of a future dir's name; nullopt for anything else.
std::optional<topic_partition> parse_future_dir_name(std::string_view name);
// A fresh 32-hex-digit unique id.
std::string random_unique_id();

}  // namespace samsa::storage
