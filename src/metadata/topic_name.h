#pragma once
// Kafka's topic name rules (storage/topic_partition.h: 1-249 characters from
// [a-zA-Z0-9._-], not "." or "..") with Kafka's error messages. Names that differ only by
// '.' versus '_' collide in metric names, so creating one when the other exists
// is refused.
#include <string>
#include <string_view>

#include "common/result.h"
#include "storage/topic_partition.h"

namespace samsa::metadata {

inline constexpr size_t max_topic_name_length = storage::max_topic_name_length;

// INVALID_TOPIC_EXCEPTION with Kafka's message when the name is not legal.
status validate_topic_name(std::string_view name);

// The name with every '.' replaced by '_'; two topics collide when equal.
std::string unify_collision_chars(std::string_view name);

}  // namespace samsa::metadata
