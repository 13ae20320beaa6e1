// DeleteGroups (key 42) against the in-process broker: an empty group is
// deleted with its offsets; unknown groups and groups with members get
// GROUP_ID_NOT_FOUND and NON_EMPTY_GROUP, as Kafka answers.
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"

namespace samsa::server::test {
namespace {

using protocol::delete_groups_request;
using protocol::delete_groups_response;

class delete_groups_test : public group_test {
  protected:
    delete_groups_response remove(std::vector<std::string> groups) {
        delete_groups_request req;
        req.groups_names = std::move(groups);
        return broker().call<delete_groups_response>(req, 2);
    }
};

TEST_F(delete_groups_test, empty_group_is_deleted) {
    const auto topic = unique_name("dlg-topic");
    broker().create_topic(topic);
    const auto group = unique_name("dlg-ok");
    ASSERT_ERROR(commit(broker(), group, topic, 0, 3), error_code::none);
    auto resp = remove({group});
    ASSERT_EQ(resp.results.size(), 1u);
    EXPECT_EQ(resp.results[0].group_id, group);
    EXPECT_ERROR(resp.results[0].error_code, error_code::none);
    // Gone: described as Dead, and a second delete finds nothing.
    protocol::describe_groups_request d;
    d.groups = {group};
    auto described = broker().call<protocol::describe_groups_response>(d, 5);
    ASSERT_EQ(described.groups.size(), 1u);
    EXPECT_EQ(described.groups[0].group_state, "Dead");
    auto again = remove({group});
    ASSERT_EQ(again.results.size(), 1u);
    EXPECT_ERROR(again.results[0].error_code, error_code::group_id_not_found);
}

TEST_F(delete_groups_test, unknown_group_is_group_id_not_found) {
    join_stable(broker(), unique_name("dlg-warm"));
    auto resp = remove({unique_name("dlg-missing")});
    ASSERT_EQ(resp.results.size(), 1u);
    EXPECT_ERROR(resp.results[0].error_code, error_code::group_id_not_found);
}

TEST_F(delete_groups_test, group_with_members_is_non_empty_group) {
    const auto group = unique_name("dlg-busy");
    join_stable(broker(), group);
    auto resp = remove({group});
    ASSERT_EQ(resp.results.size(), 1u);
    EXPECT_ERROR(resp.results[0].error_code, error_code::non_empty_group);
}

TEST_F(delete_groups_test, each_group_is_answered) {
    const auto busy = unique_name("dlg-many-busy");
    join_stable(broker(), busy);
    const auto missing = unique_name("dlg-many-missing");
    auto resp = remove({busy, missing});
    ASSERT_EQ(resp.results.size(), 2u);
    for (const auto& r : resp.results) {
        if (r.group_id == busy) {
            EXPECT_ERROR(r.error_code, error_code::non_empty_group);
        } else {
            EXPECT_EQ(r.group_id, missing);
            EXPECT_ERROR(r.error_code, error_code::group_id_not_found);
        }
    }
}

}  // namespace
}  // namespace samsa::server::test
