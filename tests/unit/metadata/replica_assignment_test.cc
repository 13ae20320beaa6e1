#include "metadata/replica_assignment.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace samsa::metadata {
namespace {

// The tables below are written as numbers; the placement speaks node ids.
using ids = std::vector<int32_t>;
using table = std::vector<ids>;

table numbers(const std::vector<std::vector<node_id>>& placed) {
    table out;
    for (const auto& replicas : placed) {
        out.push_back(node_numbers(replicas));
    }
    return out;
}

std::vector<broker_rack> racks(
    const std::vector<std::pair<int32_t, std::optional<std::string>>>& brokers) {
    std::vector<broker_rack> out;
    for (const auto& [id, rack] : brokers) {
        out.push_back({node_id{id}, rack});
    }
    return out;
}

std::vector<broker_rack> no_racks(const ids& brokers) {
    std::vector<broker_rack> out;
    for (int32_t id : brokers) {
        out.push_back({node_id{id}, std::nullopt});
    }
    return out;
}

// r1:{0,1,2} r2:{3,4,5} r3:{6,7,8}, listed out of order on purpose.
std::vector<broker_rack> three_even_racks() {
    return racks({{6, "r3"},
                  {0, "r1"},
                  {3, "r2"},
                  {1, "r1"},
                  {7, "r3"},
                  {4, "r2"},
                  {2, "r1"},
                  {8, "r3"},
                  {5, "r2"}});
}

// a:{0,1,2} b:{3} c:{4,5}: rack-alternated 0,3,4,1,5,2.
std::vector<broker_rack> uneven_racks() {
    return racks({{0, "a"}, {1, "a"}, {2, "a"}, {3, "b"}, {4, "c"}, {5, "c"}});
}

ids alternated(const std::vector<broker_rack>& brokers) {
    return node_numbers(rack_alternated_broker_list(brokers));
}

table fixed(const std::vector<broker_rack>& brokers, int32_t start_partition_id, int32_t count,
            int16_t rf, int32_t start_index, std::optional<int32_t> shift) {
    std::mt19937 rng(0);
    auto r =
        assign_replicas_to_brokers(brokers, start_partition_id, count, rf, rng, start_index, shift);
    EXPECT_TRUE(r) << r.err().message;
    return r ? numbers(*r) : table{};
}

// ---- rack-unaware -------------------------------------------------------

// n = 3, start 0, shift 0; replicaIndex(f, s, j) = (f + 1 + (s + j) % 2) % 3.
// Partition 3 wraps past n, so the shift becomes 1 and the followers swap.
TEST(replica_assignment, rack_unaware_three_brokers_start_0_shift_0) {
    EXPECT_EQ(fixed(no_racks({0, 1, 2}), 0, 4, 3, 0, 0),
              (table{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}}));
}

// n = 5, start 2, shift 1 (5 and later: shift 2); followers at
// (f + 1 + (s + j) % 4) % 5. Every broker leads twice.
TEST(replica_assignment, rack_unaware_ten_partitions_five_brokers_start_2_shift_1) {
    const table expected = {{2, 4, 0}, {3, 0, 1}, {4, 1, 2}, {0, 2, 3}, {1, 3, 4},
                            {2, 0, 1}, {3, 1, 2}, {4, 2, 3}, {0, 3, 4}, {1, 4, 0}};
    EXPECT_EQ(fixed(no_racks({0, 1, 2, 3, 4}), 0, 10, 3, 2, 1), expected);
}

// Kafka's own AdminTest table: brokers 0-4, 10 partitions, RF 3,
// fixedStartIndex 0 (so the shift is 0 too).
TEST(replica_assignment, rack_unaware_matches_kafkas_fixed_start_0_table) {
    const table expected = {{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1},
                            {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}};
    EXPECT_EQ(fixed(no_racks({0, 1, 2, 3, 4}), 0, 10, 3, 0, std::nullopt), expected);
}

// As in Kafka, fixedStartIndex fixes nextReplicaShift too: start 2 gives
// shift 2, so partition 0 is (2, (2+1+2)%5, (2+1+3)%5).
TEST(replica_assignment, fixed_start_index_also_fixes_the_shift) {
    EXPECT_EQ(fixed(no_racks({0, 1, 2, 3, 4}), 0, 1, 3, 2, std::nullopt), (table{{2, 0, 1}}));
}

// startPartitionId 5 continues the table above from partition 5 on,
// including the shift step at 5 % 5 == 0.
TEST(replica_assignment, start_partition_id_continues_the_walk) {
    EXPECT_EQ(fixed(no_racks({0, 1, 2, 3, 4}), 5, 5, 3, 2, 1),
              (table{{2, 0, 1}, {3, 1, 2}, {4, 2, 3}, {0, 3, 4}, {1, 4, 0}}));
}

// Indexes map to ids in ascending id order, whatever order they come in.
TEST(replica_assignment, broker_ids_are_walked_in_ascending_order) {
    EXPECT_EQ(fixed(no_racks({5, 1, 3, 2}), 0, 4, 2, 0, 0),
              (table{{1, 2}, {2, 3}, {3, 5}, {5, 1}}));
}

TEST(replica_assignment, round_robin_spreads_leaders_and_never_repeats_a_broker) {
    std::mt19937 rng(42);
    const auto brokers = to_node_ids({1, 2, 3, 5});
    auto r = assign_replicas(brokers, 0, 8, 3, rng);
    ASSERT_TRUE(r) << r.err().message;
    ASSERT_EQ(r->size(), 8u);
    std::map<node_id, int> leaders;
    for (const auto& replicas : *r) {
        ASSERT_EQ(replicas.size(), 3u);
        EXPECT_EQ(std::set<node_id>(replicas.begin(), replicas.end()).size(), 3u);
        ++leaders[replicas.front()];
    }
    for (node_id b : brokers) {
        EXPECT_EQ(leaders[b], 2) << b;
    }
}

// One partition with RF 1 per topic still lands on every broker over many
// topics: the start index is random.
TEST(replica_assignment, random_start_index_reaches_every_broker) {
    std::mt19937 rng(7);
    std::set<int32_t> leaders;
    for (int topic = 0; topic < 200; ++topic) {
        auto r = assign_replicas(to_node_ids({0, 1, 2, 3, 4}), 0, 1, 1, rng);
        ASSERT_TRUE(r);
        leaders.insert((*r)[0][0].value());
    }
    EXPECT_EQ(leaders, (std::set<int32_t>{0, 1, 2, 3, 4}));
}

// ---- rack alternation ---------------------------------------------------

TEST(replica_assignment, rack_alternated_list_takes_one_broker_per_rack_in_turn) {
    EXPECT_EQ(alternated(three_even_racks()), (std::vector<int32_t>{0, 3, 6, 1, 4, 7, 2, 5, 8}));
    EXPECT_EQ(alternated(uneven_racks()), (std::vector<int32_t>{0, 3, 4, 1, 5, 2}));
    // Rack names sort as strings; ids sort within a rack.
    EXPECT_EQ(alternated(racks({{9, "z"}, {4, "a"}, {1, "z"}, {7, "m"}, {2, "a"}})),
              (std::vector<int32_t>{2, 7, 1, 4, 9}));
    // Brokers without a rack form the group that sorts first.
    EXPECT_EQ(alternated(racks({{0, "r1"}, {1, "r1"}, {2, std::nullopt}, {3, {}}})),
              (std::vector<int32_t>{2, 0, 3, 1}));
    EXPECT_TRUE(rack_alternated_broker_list({}).empty());
}

// ---- rack-aware ---------------------------------------------------------

// Arranged 0,3,6,1,4,7,2,5,8; start 0, shift 0 (times 3 racks); followers
// probed at (f + 1 + (3s + k) % 8) % 9. Partition 9 wraps: shift 1.
TEST(replica_assignment, rack_aware_three_even_racks_start_0_shift_0) {
    const table expected = {{0, 3, 6}, {3, 6, 1}, {6, 1, 4}, {1, 4, 7}, {4, 7, 2},
                            {7, 2, 5}, {2, 5, 8}, {5, 8, 0}, {8, 0, 3}, {0, 4, 7}};
    EXPECT_EQ(fixed(three_even_racks(), 0, 10, 3, 0, 0), expected);
}

// Shift 3 (9 after the racks factor): the second probe of each partition
// hits the leader's rack and is skipped.
TEST(replica_assignment, rack_aware_skips_a_rack_that_already_has_a_replica) {
    EXPECT_EQ(fixed(three_even_racks(), 0, 3, 3, 0, 3), (table{{0, 6, 4}, {3, 1, 7}, {6, 4, 2}}));
}

// RF above the rack count: every rack first, then any broker not yet used.
TEST(replica_assignment, rack_aware_more_replicas_than_racks_covers_every_rack) {
    EXPECT_EQ(fixed(three_even_racks(), 0, 1, 4, 0, 0), (table{{0, 3, 6, 1}}));
}

// a:{0,1,2} b:{3} c:{4,5}; arranged 0,3,4,1,5,2; followers probed at
// (f + 1 + k % 5) % 6. With RF 3 the lone broker of rack b is in every
// partition (Kafka's documented price of uneven racks).
TEST(replica_assignment, rack_aware_uneven_racks) {
    EXPECT_EQ(fixed(uneven_racks(), 0, 6, 2, 0, 0),
              (table{{0, 3}, {3, 4}, {4, 1}, {1, 5}, {5, 2}, {2, 3}}));
    EXPECT_EQ(fixed(uneven_racks(), 0, 6, 3, 0, 0),
              (table{{0, 3, 4}, {3, 4, 1}, {4, 1, 3}, {1, 5, 3}, {5, 2, 3}, {2, 3, 4}}));
}

// Some brokers with a rack, some without: like KRaft's StripedReplicaPlacer
// the rackless ones are one more rack (sorting first), not an error.
// Arranged 2,0,3,1.
TEST(replica_assignment, brokers_without_a_rack_are_one_more_rack) {
    const auto mixed = racks({{0, "r1"}, {1, "r1"}, {2, std::nullopt}, {3, {}}});
    EXPECT_EQ(fixed(mixed, 0, 4, 2, 0, 0), (table{{2, 0}, {0, 3}, {3, 1}, {1, 2}}));
}

// All brokers in one rack: the rack-aware walk is the rack-unaware one.
TEST(replica_assignment, a_single_rack_places_like_rack_unaware) {
    const auto one_rack = racks({{0, "r"}, {1, "r"}, {2, "r"}, {3, "r"}, {4, "r"}});
    EXPECT_EQ(fixed(one_rack, 0, 10, 3, 2, 1), fixed(no_racks({0, 1, 2, 3, 4}), 0, 10, 3, 2, 1));
}

// ---- properties over random starts --------------------------------------

TEST(replica_assignment, replicas_distinct_racks_spread_and_leaders_even) {
    const std::vector<std::vector<broker_rack>> clusters = {
        no_racks({0, 1, 2}), no_racks({1, 4, 6, 7, 9, 12}), three_even_racks(), uneven_racks()};
    for (uint32_t seed = 0; seed < 50; ++seed) {
        std::mt19937 rng(seed);
        for (const auto& brokers : clusters) {
            std::set<std::optional<std::string>> racks;
            for (const auto& b : brokers) {
                racks.insert(b.rack);
            }
            const int32_t n = int32_t(brokers.size());
            for (int16_t rf = 1; rf <= n; ++rf) {
                const int32_t start_partition = int32_t(seed % 3) * n;
                auto r = assign_replicas_to_brokers(brokers, start_partition, 2 * n, rf, rng);
                ASSERT_TRUE(r) << r.err().message;
                ASSERT_EQ(r->size(), size_t(2 * n));
                std::map<node_id, int> leaders;
                for (const auto& replicas : *r) {
                    ASSERT_EQ(replicas.size(), size_t(rf));
                    EXPECT_EQ(std::set<node_id>(replicas.begin(), replicas.end()).size(),
                              size_t(rf))
                        << "seed " << seed;
                    std::set<std::optional<std::string>> used;
                    for (node_id id : replicas) {
                        for (const auto& b : brokers) {
                            if (b.id == id) {
                                used.insert(b.rack);
                            }
                        }
                    }
                    EXPECT_EQ(used.size(), std::min(racks.size(), size_t(rf))) << "seed " << seed;
                    ++leaders[replicas.front()];
                }
                for (const auto& b : brokers) {
                    EXPECT_EQ(leaders[b.id], 2) << "seed " << seed << " broker " << b.id;
                }
            }
        }
    }
}

// ---- errors -------------------------------------------------------------

TEST(replica_assignment, refuses_factors_it_cannot_meet) {
    std::mt19937 rng(1);
    auto too_many = assign_replicas(to_node_ids({1}), 0, 1, 2, rng);
    ASSERT_FALSE(too_many);
    EXPECT_EQ(too_many.err().code, error_code::invalid_replication_factor);
    EXPECT_EQ(too_many.err().message,
              "The target replication factor of 2 cannot be reached because only 1 broker(s) "
              "are registered.");
    EXPECT_EQ(assign_replicas({}, 0, 1, 1, rng).err().message, "All brokers are currently fenced.");
    EXPECT_FALSE(assign_replicas(to_node_ids({1}), 0, 1, 0, rng));
}

TEST(replica_assignment, rack_aware_refuses_factors_it_cannot_meet) {
    std::mt19937 rng(1);
    auto too_many = assign_replicas_to_brokers(three_even_racks(), 0, 3, 10, rng);
    ASSERT_FALSE(too_many);
    EXPECT_EQ(too_many.err().code, error_code::invalid_replication_factor);
    EXPECT_EQ(too_many.err().message,
              "The target replication factor of 10 cannot be reached because only 9 broker(s) "
              "are registered.");
    auto zero = assign_replicas_to_brokers(three_even_racks(), 0, 3, 0, rng);
    ASSERT_FALSE(zero);
    EXPECT_EQ(zero.err().code, error_code::invalid_replication_factor);
    EXPECT_EQ(zero.err().message,
              "Invalid replication factor 0: the replication factor must be positive.");
    auto none = assign_replicas_to_brokers({}, 0, 3, 1, rng);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.err().code, error_code::invalid_replication_factor);
}

// ---- CreatePartitions ---------------------------------------------------

TEST(replica_assignment, start_index_continuing_finds_partition_0s_leader) {
    EXPECT_EQ(start_index_continuing(no_racks({0, 1, 2, 3, 4}), node_id{2}), 2);
    // Broker 2 is gone: the next id up, 3, is at index 2 of 0,1,3,4.
    EXPECT_EQ(start_index_continuing(no_racks({0, 1, 3, 4}), node_id{2}), 2);
    EXPECT_EQ(start_index_continuing(no_racks({0, 1, 3, 4}), node_id{5}), 0);
    // Rack-aware: the position in 0,3,6,1,4,7,2,5,8, not in 0..8.
    EXPECT_EQ(start_index_continuing(three_even_racks(), node_id{3}), 1);
    EXPECT_EQ(start_index_continuing(three_even_racks(), node_id{7}), 5);
}

// Partition 0 led by 2 over brokers 0-4: start index 2 (and shift 2, the
// shift stepping to 3 at partition 5). New leaders continue 2,3,4,0,1.
TEST(replica_assignment, added_partitions_continue_the_leader_rotation) {
    std::mt19937 rng(3);
    auto r =
        assign_added_partitions(no_racks({0, 1, 2, 3, 4}), to_node_ids({2, 4, 0}), 5, 5, 3, rng);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(numbers(*r), (table{{2, 1, 3}, {3, 2, 4}, {4, 3, 0}, {0, 4, 1}, {1, 0, 2}}));
    auto too_many = assign_added_partitions(no_racks({0, 1}), to_node_ids({0, 1, 2}), 1, 1, 3, rng);
    ASSERT_FALSE(too_many);
    EXPECT_EQ(too_many.err().code, error_code::invalid_replication_factor);
}

// ---- the image ----------------------------------------------------------

TEST(replica_assignment, fenced_brokers_are_not_usable) {
    metadata_image img;
    img.brokers[node_id{1}].id = node_id{1};
    img.brokers[node_id{2}].id = node_id{2};
    img.brokers[node_id{2}].fenced = true;
    img.brokers[node_id{3}].id = node_id{3};
    img.brokers[node_id{3}].in_controlled_shutdown = true;
    EXPECT_EQ(usable_brokers(img), to_node_ids({1}));
    EXPECT_EQ(initial_isr(img, to_node_ids({3, 2, 1})), to_node_ids({1}));
    EXPECT_TRUE(validate_manual_assignment(img, to_node_ids({2, 1}), std::nullopt));
    EXPECT_EQ(validate_manual_assignment(img, to_node_ids({1, 9, 4}), std::nullopt).err().message,
              "The manual partition assignment includes broker 4, but no such broker is "
              "registered.");
}

TEST(replica_assignment, usable_broker_racks_carry_the_registered_rack) {
    metadata_image img;
    img.brokers[node_id{1}].id = node_id{1};
    img.brokers[node_id{1}].rack = "r1";
    img.brokers[node_id{2}].id = node_id{2};
    img.brokers[node_id{2}].rack = "r2";
    img.brokers[node_id{2}].fenced = true;
    img.brokers[node_id{3}].id = node_id{3};
    EXPECT_EQ(usable_broker_racks(img), racks({{1, "r1"}, {3, std::nullopt}}));
}

}  // namespace
}  // namespace samsa::metadata
