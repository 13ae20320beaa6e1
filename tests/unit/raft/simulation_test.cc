// The deterministic simulation of the quorum (raft/sim/sim_cluster.h), run for
// many seeds per scenario. A failure prints the seed and how to replay it:
//
//   SAMSA_RAFT_SEED=1234 ./unit_raft --gtest_filter='raft_simulation.<scenario>'
//
// runs just that seed, tracing every message, fault and role change on stderr
// (SAMSA_RAFT_VERBOSE=0 to keep it quiet). SAMSA_RAFT_RUNS and
// SAMSA_RAFT_FIRST_SEED change how many seeds run and from where (a longer
// soak: SAMSA_RAFT_RUNS=100000).
#include <chrono>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "raft/sim/sim_cluster.h"

namespace samsa::raft::sim {
namespace {

std::optional<uint64_t> env_number(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') {
        return std::nullopt;
    }
    return std::strtoull(v, nullptr, 10);
}

void run_seeds(const char* scenario, sim_options base, uint64_t runs) {
    auto only = env_number("SAMSA_RAFT_SEED");
    uint64_t first = env_number("SAMSA_RAFT_FIRST_SEED").value_or(1);
    runs = env_number("SAMSA_RAFT_RUNS").value_or(runs);
    bool verbose = only && env_number("SAMSA_RAFT_VERBOSE").value_or(1) != 0;
    auto level = spdlog::get_level();
    spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::off);
    if (verbose) {
        // The node's own log lines, between the simulation's `t=...` lines;
        // wall-clock stamps would only be noise in a replay.
        spdlog::set_pattern("        %v");
    }

    auto started = std::chrono::steady_clock::now();
    sim_stats total;
    uint64_t done = 0;
    for (uint64_t i = 0; i < (only ? 1 : runs); ++i) {
        sim_options o = base;
        o.seed = only ? *only : first + i;
        o.verbose = verbose;
        sim_result r = run_simulation(o);
        ++done;
        total.steps += r.stats.steps;
        total.messages += r.stats.messages;
        total.committed += r.stats.committed;
        total.crashes += r.stats.crashes;
        total.snapshots += r.stats.snapshots;
        total.max_epoch = std::max(total.max_epoch, r.stats.max_epoch);
        if (verbose || r.violation) {
            std::fprintf(
                stderr,
                "seed %llu: steps=%lld messages=%lld committed=%lld max_epoch=%d "
                "crashes=%d snapshots=%d liveness_ms=%lld\n",
                static_cast<unsigned long long>(o.seed), static_cast<long long>(r.stats.steps),
                static_cast<long long>(r.stats.messages), static_cast<long long>(r.stats.committed),
                r.stats.max_epoch, r.stats.crashes, r.stats.snapshots,
                static_cast<long long>(r.stats.liveness_ms));
        }
        if (r.violation) {
            ADD_FAILURE() << "raft simulation " << scenario << " seed " << o.seed << ": "
                          << *r.violation << "\nreplay: SAMSA_RAFT_SEED=" << o.seed
                          << " ./unit_raft --gtest_filter='raft_simulation." << scenario << "'";
            break;
        }
    }
    spdlog::set_level(level);
    spdlog::set_pattern("%+");
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - started)
                  .count();
    std::printf(
        "[ sim      ] %s: %llu runs in %lld ms; %lld steps, %lld messages, %lld entries "
        "committed, %d crashes, %d snapshots, max epoch %d\n",
        scenario, static_cast<unsigned long long>(done), static_cast<long long>(ms),
        static_cast<long long>(total.steps), static_cast<long long>(total.messages),
        static_cast<long long>(total.committed), total.crashes, total.snapshots, total.max_epoch);
}

// What makes a printed seed worth printing.
TEST(raft_simulation, a_seed_replays_the_same_run) {
    auto level = spdlog::get_level();
    spdlog::set_level(spdlog::level::off);
    sim_options o;
    o.voters = 5;
    o.seed = 77;
    sim_result a = run_simulation(o);
    sim_result b = run_simulation(o);
    spdlog::set_level(level);
    EXPECT_EQ(a.stats.steps, b.stats.steps);
    EXPECT_EQ(a.stats.messages, b.stats.messages);
    EXPECT_EQ(a.stats.committed, b.stats.committed);
    EXPECT_EQ(a.stats.crashes, b.stats.crashes);
    EXPECT_EQ(a.stats.liveness_ms, b.stats.liveness_ms);
    EXPECT_GT(a.stats.committed, 0);
}

TEST(raft_simulation, three_voters_and_an_observer) {
    sim_options o;
    o.voters = 3;
    o.observers = 1;
    run_seeds("three_voters_and_an_observer", o, 3000);
}

TEST(raft_simulation, five_voters_and_an_observer) {
    sim_options o;
    o.voters = 5;
    o.observers = 1;
    run_seeds("five_voters_and_an_observer", o, 2000);
}

TEST(raft_simulation, three_voters_lossy_network_no_crashes) {
    sim_options o;
    o.voters = 3;
    o.observers = 1;
    o.crashes = false;
    o.network.drop = 0.15;
    o.network.duplicate = 0.1;
    o.network.slow = 0.05;
    run_seeds("three_voters_lossy_network_no_crashes", o, 2000);
}

// Timers ten times shorter than Kafka's and faults more often: many more
// elections per run, where the races between epochs live.
sim_options fast_elections(int voters) {
    sim_options o;
    o.voters = voters;
    o.observers = 1;
    o.timers.election_timeout = raft_ms{100};
    o.timers.fetch_timeout = raft_ms{200};
    o.timers.election_backoff_max = raft_ms{100};
    o.timers.request_timeout = raft_ms{200};
    o.timers.fetch_max_wait = raft_ms{50};
    o.timers.begin_quorum_epoch_retry = raft_ms{50};
    // About one batch per Fetch: a follower can end exactly where a new
    // leader's epoch starts (the commit rule's reason to exist).
    o.timers.fetch_max_bytes = 150;
    o.timers.fetch_snapshot_max_bytes = 64;
    o.fault_min_ms = 50;
    o.fault_max_ms = 400;
    o.liveness = raft_ms{5000};
    return o;
}

TEST(raft_simulation, three_voters_fast_elections) {
    run_seeds("three_voters_fast_elections", fast_elections(3), 3000);
}

TEST(raft_simulation, five_voters_fast_elections) {
    run_seeds("five_voters_fast_elections", fast_elections(5), 1500);
}

// Without pre-vote (VoteRequest before v2): plain KIP-595 elections.
TEST(raft_simulation, three_voters_without_pre_vote) {
    sim_options o = fast_elections(3);
    o.timers.pre_vote = false;
    run_seeds("three_voters_without_pre_vote", o, 1000);
}

TEST(raft_simulation, quorum_of_one_with_observers) {
    sim_options o;
    o.voters = 1;
    o.observers = 2;
    run_seeds("quorum_of_one_with_observers", o, 1000);
}

}  // namespace
}  // namespace samsa::raft::sim
