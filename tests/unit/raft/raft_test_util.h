#pragma once
// A raft_node driven by hand for unit tests: the messages it sends are kept
// for the test to inspect and answer; what it hands its listener is recorded.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/generated/snapshot_header_record.h"
#include "protocol/writer.h"
#include "raft/memory_raft_log.h"
#include "raft/quorum_state_store.h"
#include "raft/raft_batch_codec.h"
#include "raft/raft_node.h"

namespace samsa::raft::test {

// A snapshot's bytes as the metadata snapshots start: a SnapshotHeader batch
// carrying `timestamp_ms`, then `filler` bytes standing for the records.
inline std::shared_ptr<const bytes> snapshot_data(int64_t timestamp_ms, size_t filler = 0) {
    protocol::snapshot_header_record h;
    h.last_contained_log_timestamp = timestamp_ms;
    protocol::writer w;
    h.encode(w, 0);
    raft_batch header{raft_offset{0},
                      raft_epoch{1},
                      control_record_type::snapshot_header,
                      {std::move(w.buffer())}};
    auto data = *encode_record_batch(header, timestamp_ms);
    data.resize(data.size() + filler, 0);
    return std::make_shared<const bytes>(std::move(data));
}

inline std::vector<bytes> records(std::initializer_list<std::string> values) {
    std::vector<bytes> out;
    for (const auto& v : values) {
        out.emplace_back(v.begin(), v.end());
    }
    return out;
}

struct captured {
    node_id to;
    raft_message message;
    std::optional<election_state> persisted;  // the quorum-state when it was sent
};

class capture_transport final : public raft_transport {
  public:
    explicit capture_transport(const memory_quorum_state_store& store) : _store(store) {}
    void send(node_id to, raft_message m) override {
        sent.push_back({to, std::move(m), _store.state()});
    }
    template <typename T>
    std::vector<std::pair<node_id, T>> take() {
        std::vector<std::pair<node_id, T>> out;
        std::erase_if(sent, [&](captured& c) {
            if (auto* m = std::get_if<T>(&c.message)) {
                out.emplace_back(c.to, *m);
                return true;
            }
            return false;
        });
        return out;
    }
    std::vector<captured> sent;

  private:
    const memory_quorum_state_store& _store;
};

class recording_listener final : public raft_listener {
  public:
    void handle_commit(const raft_batch& b) override { commits.push_back(b); }
    void handle_snapshot(const raft_snapshot& s) override { snapshots.push_back(s); }
    void handle_leader_change(leader_and_epoch l) override { leaders.push_back(l); }
    std::vector<raft_batch> commits;
    std::vector<raft_snapshot> snapshots;
    std::vector<leader_and_epoch> leaders;
};

// One node; the rest of the quorum is played by the test.
struct node_fixture {
    node_fixture(int32_t id, std::vector<int32_t> voters) {
        config.local_id = node_id{id};
        for (int32_t v : voters) {
            config.voters.push_back(node_id{v});
        }
    }
    raft_node& start(raft_time now = raft_time{}) {
        node = std::make_unique<raft_node>(config, log, store, transport, listener, random);
        EXPECT_TRUE(node->start(now));
        return *node;
    }

    raft_config config;
    memory_raft_log log;
    memory_quorum_state_store store;
    capture_transport transport{store};
    recording_listener listener;
    seeded_random random{7};
    std::unique_ptr<raft_node> node;
};

inline raft_time at(int64_t ms) {
    return raft_time::from_ms(ms);
}

}  // namespace samsa::raft::test
