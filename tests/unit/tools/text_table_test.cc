#include "tools/text_table.h"

#include <gtest/gtest.h>

namespace samsa::tools {
namespace {

TEST(text_table, pads_columns_to_their_minimum_like_kafka_printf) {
    // kafka-consumer-groups.sh: "%-15s %-10s %s".
    text_table t({{"GROUP", 15}, {"PARTITION", 10}, {"CLIENT-ID", 0}});
    t.add_row({"g", "0", "c"});
    EXPECT_EQ(t.render(),
              "GROUP           PARTITION  CLIENT-ID\n"
              "g               0          c\n");
}

TEST(text_table, widens_a_column_to_its_longest_cell) {
    text_table t({{"TOPIC", 5}, {"N", 0}});
    t.add_row({"a-much-longer-topic", "1"});
    t.add_row({"b", "22"});
    EXPECT_EQ(t.render(),
              "TOPIC               N\n"
              "a-much-longer-topic 1\n"
              "b                   22\n");
}

TEST(text_table, leaves_no_trailing_blanks_and_fills_short_rows) {
    text_table t({{"A", 3}, {"B", 3}});
    t.add_row({"x"});
    EXPECT_EQ(t.render(), "A   B\nx\n");
    EXPECT_EQ(t.row_count(), 1u);
}

TEST(text_table, header_only_when_empty) {
    text_table t({{"GROUP", 10}, {"STATE", 0}});
    EXPECT_TRUE(t.empty());
    EXPECT_EQ(t.render(), "GROUP      STATE\n");
}

// Kafka's ToolsUtils.prettyPrintTable: each cell padded to its column and
// followed by a tab, the last one too (kafka-metadata-quorum.sh --replication,
// kafka-transactions.sh).
TEST(kafka_pretty_table, pads_every_cell_and_ends_each_with_a_tab) {
    EXPECT_EQ(kafka_pretty_table({"NodeId", "Status"}, {{"1", "Leader"}, {"12", "Follower"}}),
              "NodeId\tStatus  \t\n"
              "1     \tLeader  \t\n"
              "12    \tFollower\t\n");
    text_table t({{"A", 5}, {"Bee", 0}});
    t.add_row({"xx"});
    EXPECT_EQ(t.render_tabbed(), "A \tBee\t\nxx\t   \t\n");
}

}  // namespace
}  // namespace samsa::tools
