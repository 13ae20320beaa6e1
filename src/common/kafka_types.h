#pragma once
// Strong types for the quantities of Kafka's data path: offsets, epochs and
// ids of partitions, nodes and producers (the Raft room has its own offset
// and epoch, raft/raft_types.h; the node id is the same `node.id` there).
// Each converts to its number only through `.value()`, at the wire and on
// disk, so a partition id cannot be passed as a node id, nor a leader epoch
// as a producer epoch, nor a Raft offset as a Kafka offset.
#include <cstdint>
#include <vector>

#include "common/strong_value.h"

namespace samsa {

// An offset in a partition's log. "End offset" always means the next offset
// to be written (exclusive), as in Kafka.
struct kafka_offset_tag {};
class kafka_offset : public strong_value<int64_t, kafka_offset_tag> {
  public:
    using strong_value::strong_value;
    constexpr kafka_offset operator+(int64_t n) const { return kafka_offset{value() + n}; }
    constexpr kafka_offset operator-(int64_t n) const { return kafka_offset{value() - n}; }
    constexpr int64_t operator-(kafka_offset o) const { return value() - o.value(); }
};

// The leader epoch of a data partition (KIP-101, KIP-320); -1: none / unknown
// (a request that skips the epoch check).
struct leader_epoch_tag {};
class leader_epoch : public strong_value<int32_t, leader_epoch_tag> {
  public:
    using strong_value::strong_value;
    constexpr bool is_known() const { return value() >= 0; }
};
inline constexpr leader_epoch no_leader_epoch{-1};

struct partition_id_tag {};
class partition_id : public strong_value<int32_t, partition_id_tag> {
  public:
    using strong_value::strong_value;
};

// `node.id` of a broker or controller; -1: none.
struct node_id_tag {};
class node_id : public strong_value<int32_t, node_id_tag> {
  public:
    using strong_value::strong_value;
    constexpr bool is_valid() const { return value() >= 0; }
};
inline constexpr node_id no_node{-1};

// Idempotent and transactional producers (KIP-98); -1: no producer id.
struct producer_id_tag {};
class producer_id : public strong_value<int64_t, producer_id_tag> {
  public:
    using strong_value::strong_value;
    constexpr bool is_valid() const { return value() >= 0; }
};
inline constexpr producer_id no_producer_id{-1};

struct producer_epoch_tag {};
class producer_epoch : public strong_value<int16_t, producer_epoch_tag> {
  public:
    using strong_value::strong_value;
};

// A batch's base sequence of its producer.
struct sequence_tag {};
class sequence : public strong_value<int32_t, sequence_tag> {
  public:
    using strong_value::strong_value;
};

// A list of node ids as the wire carries it (generated structs, entityType
// brokerId) from the numbers kept in the metadata image, and back.
inline std::vector<node_id> to_node_ids(const std::vector<int32_t>& ids) {
    std::vector<node_id> out;
    out.reserve(ids.size());
    for (int32_t id : ids) {
        out.emplace_back(id);
    }
    return out;
}
inline std::vector<int32_t> node_numbers(const std::vector<node_id>& ids) {
    std::vector<int32_t> out;
    out.reserve(ids.size());
    for (node_id id : ids) {
        out.push_back(id.value());
    }
    return out;
}

// Whether `id` is in a replica list (an ISR, an assignment).
inline bool contains(const std::vector<node_id>& ids, node_id id) {
    for (node_id x : ids) {
        if (x == id) {
            return true;
        }
    }
    return false;
}

// (epoch, end offset): the largest epoch at or below one asked for and where
// it ends in a log (OffsetForLeaderEpoch), or a Fetch's diverging epoch.
struct epoch_end_offset {
    leader_epoch epoch = no_leader_epoch;
    kafka_offset end_offset{-1};
    constexpr bool operator==(const epoch_end_offset&) const = default;
};

}  // namespace samsa
