#pragma once
// Follower replication (DESIGN.md §7): for every partition this broker hosts
// but does not lead, fetch from its leader with this broker's replica id and
// append what comes back with the leader's offsets and epochs.
//
// One fetcher per leader broker (Kafka's ReplicaFetcherThread per source
// broker, num.replica.fetchers = 1): a coroutine on a reactor that sends one
// Fetch for all the partitions it follows from that leader (bounded by
// replica.fetch.max.bytes per partition, replica.fetch.response.max.bytes in
// all, long-polling replica.fetch.wait.max.ms), hands each partition's part to
// the partition's shard, and fetches again. A fetch carries the follower's
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

namespace samsa::server::replication {

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
    replica_fetcher_manager(const config::broker_config& cfg, cluster::replica_manager& rm,
                            asio::any_io_executor ex);
    ~replica_fetcher_manager();

    void on_metadata(const metadata::metadata_image& image);
    void stop();

  private:
    const config::broker_config& _cfg;
    cluster::replica_manager& _rm;
    asio::any_io_executor _ex;
    std::mutex _mutex;
    std::map<int32_t, std::shared_ptr<replica_fetcher>> _fetchers;  // by leader broker
    bool _stopped = false;
};

}  // namespace samsa::server::replication
