#pragma once
// Strong types for the quantities of the KRaft protocol (KIP-595), so that a
// Raft epoch, a Raft log offset and a node id cannot be passed where a Kafka
// partition offset, a leader epoch of a data partition or a broker epoch is
// wanted (and the other way round). The metadata log's offsets are Kafka
// offsets of `__cluster_metadata-0` on disk; inside the Raft room they are
// `raft_offset`, and the conversion is explicit (`.value()`).
#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>

#include <fmt/format.h>

#include "common/kafka_types.h"
#include "common/strong_value.h"

namespace samsa::raft {

using samsa::strong_value;

// The Raft epoch (Kafka: "leader epoch" of the metadata partition; the
// controller epoch). Starts at 0 on a fresh quorum; never decreases on a node.
struct raft_epoch_tag {};
class raft_epoch : public strong_value<int32_t, raft_epoch_tag> {
  public:
    using strong_value::strong_value;
    constexpr raft_epoch next() const { return raft_epoch{value() + 1}; }
};

// The largest epoch a node adopts or stands in: its successor is still an
// int32, so epochs never wrap (raft/request_checks.h refuses larger ones).
inline constexpr raft_epoch max_possible_epoch{INT32_MAX - 1};

// An offset in the Raft log: one per record, as in any Kafka log. "End offset"
// always means the next offset to be written (exclusive).
struct raft_offset_tag {};
class raft_offset : public strong_value<int64_t, raft_offset_tag> {
  public:
    using strong_value::strong_value;
    constexpr raft_offset operator+(int64_t n) const { return raft_offset{value() + n}; }
    constexpr raft_offset operator-(int64_t n) const { return raft_offset{value() - n}; }
    constexpr int64_t operator-(raft_offset o) const { return value() - o.value(); }
};

// A replica of the metadata partition: `node.id` of a controller or broker,
// the same id as everywhere else.
using samsa::no_node;
using samsa::node_id;

// (end offset, epoch): the end of a log (the epoch of its last entry), the id of
// a snapshot (KIP-630: covers offsets below end_offset; epoch of the entry at
// end_offset - 1), or Fetch's diverging epoch. Ordered epoch first, as Raft
// compares logs ("at least as up to date").
struct offset_and_epoch {
    raft_offset offset{0};
    raft_epoch epoch{0};
    constexpr auto operator<=>(const offset_and_epoch& o) const {
        if (auto c = epoch <=> o.epoch; c != 0) {
            return c;
        }
        return offset <=> o.offset;
    }
    constexpr bool operator==(const offset_and_epoch&) const = default;
};

struct leader_and_epoch {
    node_id leader = no_node;  // no_node: not known in this epoch
    raft_epoch epoch{0};
    constexpr bool operator==(const leader_and_epoch&) const = default;
};

// Time is injected: the core never reads a clock. Milliseconds on an arbitrary
// monotonic origin (the simulation starts at 0).
using raft_clock = std::chrono::steady_clock;
using raft_ms = std::chrono::milliseconds;
struct raft_time {
    raft_ms since_origin{0};
    constexpr auto operator<=>(const raft_time&) const = default;
    constexpr raft_time operator+(raft_ms d) const { return raft_time{since_origin + d}; }
    constexpr raft_ms operator-(raft_time o) const { return since_origin - o.since_origin; }
    constexpr int64_t ms() const { return since_origin.count(); }
    static constexpr raft_time from_ms(int64_t ms) { return raft_time{raft_ms{ms}}; }
    static constexpr raft_time max() { return raft_time{raft_ms::max()}; }
};

}  // namespace samsa::raft

template <>
struct fmt::formatter<samsa::raft::raft_time> : fmt::formatter<int64_t> {
    auto format(samsa::raft::raft_time v, format_context& ctx) const {
        return fmt::formatter<int64_t>::format(v.ms(), ctx);
    }
};
