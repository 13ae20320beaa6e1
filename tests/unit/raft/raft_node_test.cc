// raft_node rules, one at a time, with the rest of the quorum played by hand
// (the simulation covers their interplay).
#include "raft/raft_node.h"

#include <gtest/gtest.h>

#include "raft_test_util.h"

namespace samsa::raft {
namespace {

using test::at;
using test::node_fixture;
using test::records;

constexpr raft_epoch e0{0}, e1{1}, e2{2}, e3{3};

raft_offset o(int64_t v) {
    return raft_offset{v};
}

election_state following(int32_t leader, raft_epoch epoch, std::vector<int32_t> voters) {
    election_state s;
    s.epoch = epoch;
    s.leader = node_id{leader};
    for (int32_t v : voters) {
        s.voters.push_back(node_id{v});
    }
    return s;
}

// Node 1 of {1, 2, 3} wins an election (node 2 grants both votes).
void elect(node_fixture& f, raft_time now) {
    raft_node& n = *f.node;
    n.poll(now);
    ASSERT_EQ(n.role(), role_kind::prospective);
    for (auto& [to, r] : f.transport.take<vote_request>()) {
        if (to == node_id{2}) {
            EXPECT_TRUE(r.pre_vote);
            n.handle(to,
                     vote_response{r.correlation_id, error_code::none, {no_node, n.epoch()}, true},
                     now);
        }
    }
    ASSERT_EQ(n.role(), role_kind::candidate);
    for (auto& [to, r] : f.transport.take<vote_request>()) {
        if (to == node_id{2}) {
            EXPECT_FALSE(r.pre_vote);
            n.handle(to,
                     vote_response{r.correlation_id, error_code::none, {no_node, n.epoch()}, true},
                     now);
        }
    }
    ASSERT_TRUE(n.is_leader());
}

fetch_request fetch(node_id replica, raft_epoch epoch, int64_t offset, raft_epoch last_epoch) {
    return fetch_request{
        1000 + int32_t(offset), replica, epoch, o(offset), last_epoch, 1 << 20, raft_ms{0}};
}

TEST(raft_node, quorum_of_one_elects_itself_and_commits_appends) {
    node_fixture f(1, {1});
    raft_node& n = f.start(at(0));
    n.poll(at(0));
    ASSERT_TRUE(n.is_leader());
    EXPECT_EQ(n.epoch(), e1);
    // The epoch opens with a LeaderChange record, committed at once.
    EXPECT_EQ(n.high_watermark(), o(1));
    ASSERT_EQ(f.listener.commits.size(), 1u);
    EXPECT_EQ(f.listener.commits[0].control, control_record_type::leader_change);
    EXPECT_EQ(f.listener.leaders.back(), (leader_and_epoch{node_id{1}, e1}));

    auto last = n.append(records({"a", "b"}), at(1));
    ASSERT_TRUE(last);
    EXPECT_EQ(*last, o(2));
    n.poll(at(1));
    EXPECT_EQ(n.high_watermark(), o(1)) << "not flushed before append.linger.ms";
    n.poll(at(1) + f.config.append_linger);
    EXPECT_EQ(n.high_watermark(), o(3));
    ASSERT_EQ(f.listener.commits.size(), 2u);
    EXPECT_EQ(f.listener.commits[1].records, records({"a", "b"}));
}

TEST(raft_node, append_off_the_leader_fails_with_not_leader_or_follower) {
    node_fixture f(2, {1, 2, 3});
    raft_node& n = f.start();
    EXPECT_EQ(n.append(records({"x"}), at(0)).code(), error_code::not_leader_or_follower);
}

TEST(raft_node, a_leader_append_for_another_epoch_fails) {
    node_fixture f(1, {1});
    raft_node& n = f.start();
    n.poll(at(0));
    ASSERT_TRUE(n.is_leader());
    EXPECT_EQ(n.append(records({"x"}), at(0), e2).code(), error_code::not_leader_or_follower);
    EXPECT_TRUE(n.append(records({"x"}), at(0), e1));
}

TEST(raft_node, vote_is_persisted_before_it_is_granted_and_granted_once_per_epoch) {
    node_fixture f(2, {1, 2, 3});
    raft_node& n = f.start();
    n.handle(node_id{1}, vote_request{42, e1, node_id{1}, {o(0), e0}, false}, at(5));
    ASSERT_EQ(f.transport.sent.size(), 1u);
    const auto& granted = std::get<vote_response>(f.transport.sent[0].message);
    EXPECT_TRUE(granted.vote_granted);
    ASSERT_TRUE(f.transport.sent[0].persisted);
    EXPECT_EQ(f.transport.sent[0].persisted->voted, node_id{1});
    EXPECT_EQ(f.transport.sent[0].persisted->epoch, e1);
    EXPECT_EQ(n.role(), role_kind::voted);

    n.handle(node_id{3}, vote_request{43, e1, node_id{3}, {o(9), e0}, false}, at(6));
    EXPECT_FALSE(std::get<vote_response>(f.transport.sent[1].message).vote_granted);
    // The same candidate asking again (a retry) gets the same answer.
    n.handle(node_id{1}, vote_request{44, e1, node_id{1}, {o(0), e0}, false}, at(7));
    EXPECT_TRUE(std::get<vote_response>(f.transport.sent[2].message).vote_granted);
}

TEST(raft_node, vote_refused_to_a_candidate_with_a_shorter_log) {
    node_fixture f(2, {1, 2, 3});
    ASSERT_TRUE(f.log.append_as_leader(records({"a", "b"}), e1, control_record_type::none));
    raft_node& n = f.start();
    n.handle(node_id{1}, vote_request{1, e2, node_id{1}, {o(1), e1}, false}, at(0));
    EXPECT_FALSE(std::get<vote_response>(f.transport.sent.back().message).vote_granted);
    // A later last epoch wins over a longer log.
    n.handle(node_id{3}, vote_request{2, e3, node_id{3}, {o(1), e2}, false}, at(0));
    EXPECT_TRUE(std::get<vote_response>(f.transport.sent.back().message).vote_granted);
}

// Raft RPCs are unauthenticated: one request must not move a node to an epoch
// whose successor wraps, make it vote for itself, or obey a non-voter.
TEST(raft_node, vote_naming_this_node_at_the_largest_epoch_is_refused) {
    node_fixture f(2, {1, 2, 3});
    raft_node& n = f.start();
    const raft_epoch huge{INT32_MAX};
    n.handle(node_id{2}, vote_request{5, huge, node_id{2}, {o(0), e0}, false}, at(1));
    ASSERT_EQ(f.transport.sent.size(), 1u);
    const auto& answer = std::get<vote_response>(f.transport.sent[0].message);
    EXPECT_EQ(answer.error, error_code::invalid_request);
    EXPECT_FALSE(answer.vote_granted);
    EXPECT_EQ(n.epoch(), e0);
    EXPECT_EQ(f.store.writes(), 0);
}

TEST(raft_node, requests_with_impossible_epochs_are_refused_and_change_nothing) {
    node_fixture f(2, {1, 2, 3});
    raft_node& n = f.start();
    const raft_epoch huge{INT32_MAX};
    const raft_epoch negative{-5};
    n.handle(node_id{1}, vote_request{1, huge, node_id{1}, {o(0), e0}, false}, at(1));
    n.handle(node_id{1}, vote_request{2, negative, node_id{1}, {o(0), e0}, false}, at(1));
    n.handle(node_id{1}, begin_quorum_epoch_request{3, {node_id{1}, huge}}, at(1));
    n.handle(node_id{1}, end_quorum_epoch_request{4, {node_id{1}, huge}, {}}, at(1));
    n.handle(node_id{3}, fetch(node_id{3}, huge, 0, e0), at(1));
    ASSERT_EQ(f.transport.sent.size(), 5u);
    EXPECT_EQ(std::get<vote_response>(f.transport.sent[0].message).error,
              error_code::invalid_request);
    EXPECT_EQ(std::get<vote_response>(f.transport.sent[1].message).error,
              error_code::invalid_request);
    EXPECT_EQ(std::get<begin_quorum_epoch_response>(f.transport.sent[2].message).error,
              error_code::invalid_request);
    EXPECT_EQ(std::get<end_quorum_epoch_response>(f.transport.sent[3].message).error,
              error_code::invalid_request);
    // A fetcher's epoch above any possible is what Kafka answers an epoch
    // above the leader's; the node does not adopt it either way.
    EXPECT_EQ(std::get<fetch_response>(f.transport.sent[4].message).error,
              error_code::unknown_leader_epoch);
    EXPECT_EQ(n.epoch(), e0);
    EXPECT_EQ(n.role(), role_kind::unattached);
    EXPECT_EQ(f.store.writes(), 0);
    // The largest epoch a node takes has a successor.
    n.handle(node_id{1}, vote_request{6, max_possible_epoch, node_id{1}, {o(0), e0}, false}, at(2));
    EXPECT_TRUE(std::get<vote_response>(f.transport.sent[5].message).vote_granted);
    EXPECT_EQ(n.epoch(), max_possible_epoch);
}

TEST(raft_node, vote_whose_last_epoch_does_not_precede_the_candidate_epoch_is_refused) {
    node_fixture f(2, {1, 2, 3});
    raft_node& n = f.start();
    n.handle(node_id{1}, vote_request{1, e1, node_id{1}, {o(0), e1}, false}, at(1));
    n.handle(node_id{1}, vote_request{2, e2, node_id{1}, {o(-1), e0}, false}, at(1));
    for (const auto& c : f.transport.sent) {
        EXPECT_EQ(std::get<vote_response>(c.message).error, error_code::invalid_request);
    }
    EXPECT_EQ(n.epoch(), e0);
}

TEST(raft_node, a_leader_outside_the_voter_set_is_not_followed) {
    node_fixture f(2, {1, 2, 3});
    raft_node& n = f.start();
    n.handle(node_id{7}, begin_quorum_epoch_request{1, {node_id{7}, e3}}, at(1));
    n.handle(node_id{2}, begin_quorum_epoch_request{2, {node_id{2}, e3}}, at(1));
    ASSERT_EQ(f.transport.sent.size(), 2u);
    EXPECT_EQ(std::get<begin_quorum_epoch_response>(f.transport.sent[0].message).error,
              error_code::inconsistent_voter_set);
    EXPECT_EQ(std::get<begin_quorum_epoch_response>(f.transport.sent[1].message).error,
              error_code::invalid_request);
    EXPECT_EQ(n.epoch(), e0);
    EXPECT_EQ(n.leader().leader, no_node);
}

TEST(raft_node, a_response_naming_an_impossible_epoch_is_dropped) {
    node_fixture f(1, {1, 2, 3});
    raft_node& n = f.start(at(0));
    n.poll(at(0) + f.config.election_timeout * 3);
    auto votes = f.transport.take<vote_request>();
    ASSERT_FALSE(votes.empty());
    const raft_epoch before = n.epoch();
    n.handle(votes[0].first,
             vote_response{votes[0].second.correlation_id,
                           error_code::none,
                           {node_id{2}, raft_epoch{INT32_MAX}},
                           false},
             at(0) + f.config.election_timeout * 3);
    EXPECT_EQ(n.epoch(), before);
    EXPECT_NE(n.leader().leader, node_id{2});
}

TEST(raft_node, a_node_at_the_largest_epoch_does_not_stand_again) {
    node_fixture f(2, {1, 2, 3});
    ASSERT_TRUE(f.store.write(following(-1, max_possible_epoch, {1, 2, 3})));
    raft_node& n = f.start(at(0));
    n.poll(at(0) + f.config.election_timeout * 3);
    n.poll(at(0) + f.config.election_timeout * 6);
    EXPECT_NE(n.role(), role_kind::candidate);
    EXPECT_LE(n.epoch(), max_possible_epoch);
}

TEST(raft_node, pre_vote_changes_nothing) {
    node_fixture f(2, {1, 2, 3});
    raft_node& n = f.start();
    n.handle(node_id{1}, vote_request{7, e1, node_id{1}, {o(0), e0}, true}, at(5));
    EXPECT_TRUE(std::get<vote_response>(f.transport.sent[0].message).vote_granted);
    EXPECT_EQ(f.store.writes(), 0);
    EXPECT_EQ(n.epoch(), e0);
    EXPECT_EQ(n.role(), role_kind::unattached);
}

TEST(raft_node, follower_refuses_pre_votes_while_it_hears_from_its_leader) {
    node_fixture f(2, {1, 2, 3});
    ASSERT_TRUE(f.store.write(following(1, e3, {1, 2, 3})));
    raft_node& n = f.start();
    ASSERT_EQ(n.role(), role_kind::follower);
    n.handle(node_id{3}, vote_request{1, raft_epoch{4}, node_id{3}, {o(0), e0}, true}, at(1));
    EXPECT_TRUE(std::get<vote_response>(f.transport.sent.back().message).vote_granted)
        << "not heard from the leader yet in this epoch";

    n.poll(at(2));
    auto fetches = f.transport.take<fetch_request>();
    ASSERT_EQ(fetches.size(), 1u);
    EXPECT_EQ(fetches[0].first, node_id{1});
    fetch_response ok;
    ok.correlation_id = fetches[0].second.correlation_id;
    ok.current_leader = {node_id{1}, e3};
    n.handle(node_id{1}, ok, at(3));

    n.handle(node_id{3}, vote_request{2, raft_epoch{4}, node_id{3}, {o(0), e0}, true}, at(4));
    EXPECT_FALSE(std::get<vote_response>(f.transport.sent.back().message).vote_granted);
    EXPECT_EQ(n.epoch(), e3);
}

TEST(raft_node, follower_truncates_to_the_end_of_the_common_epoch) {
    node_fixture f(2, {1, 2, 3});
    using cr = control_record_type;
    ASSERT_TRUE(f.log.append_as_follower({{o(0), e1, cr::none, records({"a", "b"})},
                                          {o(2), e2, cr::none, records({"c"})},
                                          {o(3), e2, cr::none, records({"d", "e"})}}));
    ASSERT_TRUE(f.log.flush());
    ASSERT_TRUE(f.store.write(following(1, e3, {1, 2, 3})));
    raft_node& n = f.start();
    n.poll(at(1));
    auto fetches = f.transport.take<fetch_request>();
    ASSERT_EQ(fetches.size(), 1u);
    EXPECT_EQ(fetches[0].second.fetch_offset, o(5));
    EXPECT_EQ(fetches[0].second.last_fetched_epoch, e2);

    // The leader's epoch 2 ends at 3 (its epoch 3 starts there).
    fetch_response diverging;
    diverging.correlation_id = fetches[0].second.correlation_id;
    diverging.current_leader = {node_id{1}, e3};
    diverging.diverging_epoch = offset_and_epoch{o(3), e2};
    n.handle(node_id{1}, diverging, at(2));
    EXPECT_EQ(f.log.end_offset(), o(3));

    n.poll(at(3));
    fetches = f.transport.take<fetch_request>();
    ASSERT_EQ(fetches.size(), 1u);
    EXPECT_EQ(fetches[0].second.fetch_offset, o(3));
    EXPECT_EQ(fetches[0].second.last_fetched_epoch, e2);
}

TEST(raft_node, follower_refuses_to_truncate_below_its_high_watermark) {
    node_fixture f(2, {1, 2, 3});
    ASSERT_TRUE(f.log.append_as_follower(
        {{o(0), e1, control_record_type::none, records({"a", "b", "c", "d"})}}));
    ASSERT_TRUE(f.log.flush());
    ASSERT_TRUE(f.store.write(following(1, e2, {1, 2, 3})));
    raft_node& n = f.start();
    n.poll(at(1));
    auto first = f.transport.take<fetch_request>().at(0).second;
    fetch_response hw;
    hw.correlation_id = first.correlation_id;
    hw.current_leader = {node_id{1}, e2};
    hw.high_watermark = o(4);
    n.handle(node_id{1}, hw, at(2));
    EXPECT_EQ(n.high_watermark(), o(4));

    n.poll(at(3));
    auto second = f.transport.take<fetch_request>().at(0).second;
    fetch_response bad;
    bad.correlation_id = second.correlation_id;
    bad.current_leader = {node_id{1}, e2};
    bad.diverging_epoch = offset_and_epoch{o(2), e1};
    n.handle(node_id{1}, bad, at(4));
    EXPECT_TRUE(n.failure());
    EXPECT_EQ(f.log.end_offset(), o(4));
}

TEST(raft_node, fetch_answer_to_another_request_is_ignored) {
    node_fixture f(2, {1, 2, 3});
    ASSERT_TRUE(f.store.write(following(1, e1, {1, 2, 3})));
    raft_node& n = f.start();
    n.poll(at(1));
    auto req = f.transport.take<fetch_request>().at(0).second;
    fetch_response late;
    late.correlation_id = req.correlation_id + 1;
    late.current_leader = {node_id{1}, e1};
    late.records = {{o(0), e1, control_record_type::none, records({"x"})}};
    n.handle(node_id{1}, late, at(2));
    EXPECT_EQ(f.log.end_offset(), o(0));
}

TEST(raft_node, high_watermark_waits_for_an_entry_of_the_leaders_epoch) {
    node_fixture f(1, {1, 2, 3});
    ASSERT_TRUE(f.log.append_as_follower(
        {{o(0), e1, control_record_type::none, records({"a", "b", "c"})}}));
    ASSERT_TRUE(f.log.flush());
    ASSERT_TRUE(f.store.write(following(3, e1, {1, 2, 3})));
    f.start();
    elect(f, at(5000));  // after the fetch timeout
    raft_node& n = *f.node;
    EXPECT_EQ(n.epoch(), e2);
    EXPECT_EQ(f.log.end_offset(), o(4));  // LeaderChange at 3, the epoch start

    // Node 2 holds the old entries only: they are on a majority, but
    // committing them would not be safe before an entry of epoch 2 is.
    n.handle(node_id{2}, fetch(node_id{2}, e2, 3, e1), at(5001));
    EXPECT_FALSE(n.high_watermark());
    n.handle(node_id{2}, fetch(node_id{2}, e2, 4, e2), at(5002));
    EXPECT_EQ(n.high_watermark(), o(4));
}

TEST(raft_node, observers_fetch_but_never_count) {
    node_fixture f(1, {1, 2, 3});
    f.start();
    elect(f, at(3000));
    raft_node& n = *f.node;
    n.handle(node_id{4}, fetch(node_id{4}, e1, 1, e1), at(3001));
    EXPECT_FALSE(n.high_watermark());
    auto d = n.describe_quorum();
    ASSERT_EQ(d.observers.size(), 1u);
    EXPECT_EQ(d.observers[0].log_end_offset, 1);
    n.handle(node_id{3}, fetch(node_id{3}, e1, 1, e1), at(3002));
    EXPECT_EQ(n.high_watermark(), o(1));
}

TEST(raft_node, leader_answers_a_diverging_fetch_with_the_end_of_the_common_epoch) {
    node_fixture f(1, {1, 2, 3});
    f.start();
    elect(f, at(3000));
    raft_node& n = *f.node;
    // The follower claims epoch 1 entries up to 5; ours end at 1.
    n.handle(node_id{2}, fetch(node_id{2}, e1, 5, e1), at(3001));
    auto answers = f.transport.take<fetch_response>();
    ASSERT_EQ(answers.size(), 1u);
    ASSERT_TRUE(answers[0].second.diverging_epoch);
    EXPECT_EQ(*answers[0].second.diverging_epoch, (offset_and_epoch{o(1), e1}));
    EXPECT_FALSE(n.high_watermark());
}

// A follower that fetched the leader's last entry before the leader flushed
// it parks at the log end; the flush after append.linger.ms commits the entry
// and must answer that fetch at once with the new high watermark, not when
// its max wait runs out.
TEST(raft_node, leader_flush_that_commits_answers_a_parked_fetch_at_once) {
    node_fixture f(1, {1, 2, 3});
    f.start();
    elect(f, at(3000));
    raft_node& n = *f.node;
    n.poll(at(3000) + f.config.append_linger);  // the LeaderChange record is durable
    auto waiting = [](int64_t offset) {
        auto r = fetch(node_id{2}, e1, offset, offset == 0 ? e0 : e1);
        r.max_wait = raft_ms{500};
        return r;
    };
    n.handle(node_id{2}, waiting(0), at(3100));
    n.handle(node_id{2}, waiting(1), at(3101));
    ASSERT_EQ(n.high_watermark(), o(1));
    f.transport.sent.clear();

    ASSERT_TRUE(n.append(records({"a"}), at(3200)));
    n.handle(node_id{2}, waiting(1), at(3201));
    ASSERT_EQ(f.transport.take<fetch_response>().size(), 1u) << "the new entry is sent";
    n.handle(node_id{2}, waiting(2), at(3202));
    EXPECT_TRUE(f.transport.take<fetch_response>().empty()) << "parked: not durable here yet";

    n.poll(at(3200) + f.config.append_linger);
    EXPECT_EQ(n.high_watermark(), o(2));
    auto answers = f.transport.take<fetch_response>();
    ASSERT_EQ(answers.size(), 1u) << "answered by the flush, not after 500 ms";
    ASSERT_TRUE(answers[0].second.high_watermark);
    EXPECT_EQ(*answers[0].second.high_watermark, o(2));
}

TEST(raft_node, leader_serves_its_snapshot_below_its_log_start) {
    node_fixture f(1, {1});
    raft_node& n = f.start();
    n.poll(at(0));
    ASSERT_TRUE(n.append(records({"a", "b"}), at(0)));
    n.poll(at(100));
    ASSERT_EQ(n.high_watermark(), o(3));
    bytes state{1, 2, 3, 4, 5};
    auto id = n.create_snapshot(o(3), state);
    ASSERT_TRUE(id);
    EXPECT_EQ(*id, (offset_and_epoch{o(3), e1}));
    ASSERT_TRUE(n.delete_log_before_snapshot());
    EXPECT_EQ(f.log.start_offset(), o(3));

    n.handle(node_id{9}, fetch(node_id{9}, e1, 0, e0), at(101));
    auto answer = f.transport.take<fetch_response>().at(0).second;
    ASSERT_TRUE(answer.snapshot_id);
    EXPECT_EQ(*answer.snapshot_id, *id);

    n.handle(node_id{9}, fetch_snapshot_request{5, node_id{9}, e1, *id, 2, 2}, at(102));
    auto chunk = f.transport.take<fetch_snapshot_response>().at(0).second;
    EXPECT_EQ(chunk.error, error_code::none);
    EXPECT_EQ(chunk.size, 5);
    EXPECT_EQ(chunk.position, 2);
    EXPECT_EQ(chunk.chunk, (bytes{3, 4}));
}

TEST(raft_node, snapshot_must_end_at_a_committed_offset) {
    node_fixture f(1, {1});
    raft_node& n = f.start();
    n.poll(at(0));
    ASSERT_TRUE(n.append(records({"a"}), at(0)));
    EXPECT_EQ(n.create_snapshot(o(2), {}).code(), error_code::invalid_request);
}

TEST(raft_node, commit_waiters_fail_when_leadership_is_lost) {
    node_fixture f(1, {1, 2, 3});
    f.start();
    elect(f, at(3000));
    raft_node& n = *f.node;
    auto last = n.append(records({"x"}), at(3001));
    ASSERT_TRUE(last);
    std::optional<status> outcome;
    n.when_committed(*last, [&](status s) { outcome = s; });
    n.handle(node_id{3}, vote_request{1, raft_epoch{5}, node_id{3}, {o(0), e0}, false}, at(3002));
    EXPECT_FALSE(n.is_leader());
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->code(), error_code::not_leader_or_follower);
}

TEST(raft_node, a_leader_restarts_resigned) {
    node_fixture f(1, {1, 2, 3});
    election_state s = following(1, raft_epoch{4}, {1, 2, 3});
    s.voted = node_id{1};
    ASSERT_TRUE(f.store.write(s));
    raft_node& n = f.start();
    EXPECT_EQ(n.role(), role_kind::resigned);
    EXPECT_EQ(n.epoch(), raft_epoch{4});
    EXPECT_EQ(n.append(records({"x"}), at(0)).code(), error_code::not_leader_or_follower);
}

TEST(raft_node, voters_must_match_the_persisted_ones) {
    node_fixture f(1, {1, 2, 3});
    ASSERT_TRUE(f.store.write(following(2, e1, {1, 2, 4})));
    raft_node n(f.config, f.log, f.store, f.transport, f.listener, f.random);
    EXPECT_EQ(n.start(at(0)).code(), error_code::inconsistent_voter_set);
}

TEST(raft_node, resigning_tells_the_voters_most_up_to_date_first) {
    node_fixture f(1, {1, 2, 3});
    f.start();
    elect(f, at(3000));
    raft_node& n = *f.node;
    n.handle(node_id{3}, fetch(node_id{3}, e1, 1, e1), at(3001));
    f.transport.sent.clear();
    n.resign(at(3002));
    EXPECT_EQ(n.role(), role_kind::resigned);
    auto ends = f.transport.take<end_quorum_epoch_request>();
    ASSERT_EQ(ends.size(), 2u);
    EXPECT_EQ(ends[0].second.preferred_successors, (std::vector<node_id>{node_id{3}, node_id{2}}));
}

}  // namespace
}  // namespace samsa::raft
