#include "coordinator/group/group_state.h"

#include <array>
#include <cctype>

namespace samsa::coordinator {

namespace {

constexpr std::array<group_state, 5> all_states = {
    group_state::empty, group_state::preparing_rebalance, group_state::completing_rebalance,
    group_state::stable, group_state::dead};

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(uint8_t(a[i])) != std::tolower(uint8_t(b[i]))) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::string_view group_state_name(group_state s) {
    switch (s) {
        case group_state::empty:
            return "Empty";
        case group_state::preparing_rebalance:
            return "PreparingRebalance";
        case group_state::completing_rebalance:
            return "CompletingRebalance";
        case group_state::stable:
            return "Stable";
        case group_state::dead:
            return "Dead";
    }
    return "Unknown";
}

std::optional<group_state> parse_group_state(std::string_view name) {
    for (auto s : all_states) {
        if (iequals(group_state_name(s), name)) {
            return s;
        }
    }
    return std::nullopt;
}

bool is_valid_transition(group_state from, group_state to) {
    switch (to) {
        case group_state::dead:
            return true;
        case group_state::completing_rebalance:
            return from == group_state::preparing_rebalance;
        case group_state::stable:
            return from == group_state::completing_rebalance;
        case group_state::preparing_rebalance:
            return from == group_state::stable || from == group_state::completing_rebalance ||
                   from == group_state::empty;
        case group_state::empty:
            return from == group_state::preparing_rebalance;
    }
    return false;
}

}  // namespace samsa::coordinator
