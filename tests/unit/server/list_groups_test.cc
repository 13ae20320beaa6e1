// ListGroups (key 16) against the in-process broker: groups appear with
// their protocol type and state, and the v4 state filter and v5 type filter
// (KIP-518, KIP-848) select what Kafka selects.
#include <gtest/gtest.h>

#include <algorithm>

#include "group_support.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"

namespace samsa::server::test {
namespace {

using protocol::list_groups_request;
using protocol::list_groups_response;

class list_groups_test : public group_test {
  protected:
    const list_groups_response::listed_group* find(const list_groups_response& r,
                                                   const std::string& group) {
        auto it = std::find_if(r.groups.begin(), r.groups.end(),
                               [&](const auto& g) { return g.group_id == group; });
        return it == r.groups.end() ? nullptr : &*it;
    }
};

TEST_F(list_groups_test, lists_a_stable_group) {
    const auto group = unique_name("lsg-ok");
    join_stable(broker(), group);
    auto resp = broker().call<list_groups_response>(list_groups_request{}, 4);
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* g = find(resp, group);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->protocol_type, "consumer");
    EXPECT_EQ(g->group_state, "Stable");
}

TEST_F(list_groups_test, state_filter_selects) {
    const auto group = unique_name("lsg-state");
    join_stable(broker(), group);
    list_groups_request stable;
    stable.states_filter = {"Stable"};
    EXPECT_NE(find(broker().call<list_groups_response>(stable, 4), group), nullptr);
    list_groups_request empty;
    empty.states_filter = {"Empty"};
    EXPECT_EQ(find(broker().call<list_groups_response>(empty, 4), group), nullptr);
}

TEST_F(list_groups_test, state_filter_is_case_insensitive) {
    const auto group = unique_name("lsg-case");
    join_stable(broker(), group);
    list_groups_request req;
    req.states_filter = {"stable"};
    EXPECT_NE(find(broker().call<list_groups_response>(req, 4), group), nullptr);
}

TEST_F(list_groups_test, type_filter_selects_classic_groups) {
    const auto group = unique_name("lsg-type");
    join_stable(broker(), group);
    list_groups_request classic;
    classic.types_filter = {"classic"};
    auto resp = broker().call<list_groups_response>(classic, 5);
    const auto* g = find(resp, group);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->group_type, "classic");
    list_groups_request consumer;
    consumer.types_filter = {"consumer"};
    EXPECT_EQ(find(broker().call<list_groups_response>(consumer, 5), group), nullptr);
}

}  // namespace
}  // namespace samsa::server::test
