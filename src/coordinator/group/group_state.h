#pragma once
// The states of a classic consumer group (seed inventory GRP-15; Kafka's
// ClassicGroupState) and the transitions between them:
//
//   Empty ---------------> PreparingRebalance     a member joins
//   PreparingRebalance --> CompletingRebalance    the join phase completes
//                                                 with members
//   PreparingRebalance --> Empty                  ... with none left
//   CompletingRebalance -> Stable                 the leader's assignment is
//                                                 stored
//   CompletingRebalance -> PreparingRebalance     a member joins, leaves or
//   Stable --------------> PreparingRebalance     fails
//   any -----------------> Dead                   deleted, all offsets expired,
//                                                 or the partition unloaded
//
// Dead is terminal: a Dead group is being removed and no longer serves.
#include <optional>
#include <string_view>

namespace samsa::coordinator {

enum class group_state {
    empty,
    preparing_rebalance,
    completing_rebalance,
    stable,
    dead,
};

// Kafka's names, as ListGroups and DescribeGroups report them: "Empty",
// "PreparingRebalance", "CompletingRebalance", "Stable", "Dead".
std::string_view group_state_name(group_state s);
// The state named `name`, compared case-insensitively (ListGroups filters).
std::optional<group_state> parse_group_state(std::string_view name);

// Whether the state machine above allows `from` -> `to`.
bool is_valid_transition(group_state from, group_state to);

}  // namespace samsa::coordinator
