#pragma once
// Follower replication (docs/architecture.md, "Replication"): for every partition this broker hosts
// but does not lead, fetch from its leader with this broker's replica id and
// append what comes back with the leader's offsets and epochs.
//
// num.replica.fetchers fetchers per leader broker (Kafka's ReplicaFetcherThread
// per source broker and fetcher id; a partition goes to fetcher
// |31 * hash(topic) + partition| mod num.replica.fetchers, and fetcher i runs on
// reactor i mod reactors): each a coroutine that sends one
// Fetch for all the partitions it follows from that leader (bounded by
// replica.fetch.max.bytes per partition, replica.fetch.response.max.bytes in
// all, long-polling replica.fetch.wait.max.ms), hands each partition's part to
// the partition's shard, and fetches again. Fetches run in an incremental
// fetch session (KIP-227, fetch_session_handler.h): once the session stands a
// request names only partitions whose position moved. A fetch carries the follower's
// last epoch; a diverging epoch in the answer makes it truncate to the end of
// the last common epoch first (KIP-101/279, as KIP-595 carries it), never to
// its high watermark alone. Errors back off replica.fetch.backoff.ms.
//
// The set of followed partitions comes from each new metadata image
// (on_metadata, any thread).
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <map>
#include <memory>
#include <mutex>

#include "cluster/replica_manager.h"
#include "common/config/broker_config.h"
#include "metadata/metadata_image.h"
#include "security/client_security.h"

namespace samsa::cluster::replication {

struct followed_partition {
    storage::topic_partition tp;
    uuid topic_id;
    int32_t leader_epoch = -1;
    size_t shard = 0;
    bool operator==(const followed_partition&) const = default;
};

class replica_fetcher;

class replica_fetcher_manager {
  public:
    // `tls`: how to reach the leaders' inter-broker listener when it is SSL
    // (null: plaintext).
    replica_fetcher_manager(const config::broker_config& cfg, cluster::replica_manager& rm,
                            std::shared_ptr<const security::client_security> security = nullptr);
    ~replica_fetcher_manager();

    void on_metadata(const metadata::metadata_image& image);
    void stop();

  private:
    const config::broker_config& _cfg;
    cluster::replica_manager& _rm;
    std::shared_ptr<const security::client_security> _security;
    std::mutex _mutex;
    // By (leader broker, fetcher id).
    std::map<std::pair<node_id, int32_t>, std::shared_ptr<replica_fetcher>> _fetchers;
    bool _stopped = false;
};

}  // namespace samsa::cluster::replication
