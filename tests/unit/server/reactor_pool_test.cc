#include "server/reactor_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace samsa::server {
namespace {

// The reactors a listener's next `n` connections go to, as indexes.
std::vector<size_t> next_n(reactor_pool& pool, reactor_pool::share& s, int n) {
    std::vector<size_t> out;
    for (int i = 0; i < n; ++i) {
        auto& ctx = pool.next(s);
        for (size_t r = 0; r < pool.size(); ++r) {
            if (&pool.at(r) == &ctx) {
                out.push_back(r);
            }
        }
    }
    return out;
}

TEST(reactor_pool, num_network_threads_zero_spreads_a_listener_over_every_reactor) {
    reactor_pool pool(4);
    auto s = pool.share_for(0, 0);
    EXPECT_EQ(next_n(pool, s, 6), (std::vector<size_t>{0, 1, 2, 3, 0, 1}));
}

TEST(reactor_pool, num_network_threads_limits_the_reactors_of_each_listener) {
    reactor_pool pool(4);
    auto first = pool.share_for(0, 1);
    EXPECT_EQ(next_n(pool, first, 3), (std::vector<size_t>{0, 0, 0}));
    // The next listener starts past the first one's share.
    auto second = pool.share_for(1, 1);
    EXPECT_EQ(next_n(pool, second, 3), (std::vector<size_t>{1, 1, 1}));
    // Three of four reactors, from the third listener's place, wrapping.
    auto third = pool.share_for(2, 3);
    EXPECT_EQ(next_n(pool, third, 4), (std::vector<size_t>{2, 3, 0, 2}));
}

TEST(reactor_pool, more_network_threads_than_reactors_means_every_reactor) {
    reactor_pool pool(2);
    auto s = pool.share_for(3, 8);
    EXPECT_EQ(next_n(pool, s, 3), (std::vector<size_t>{0, 1, 0}));
}

}  // namespace
}  // namespace samsa::server
