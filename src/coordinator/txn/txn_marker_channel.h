#pragma once
// txn_marker_channel: writes a transaction's COMMIT or ABORT marker to every
// partition of it (Kafka's TransactionMarkerChannelManager): WriteTxnMarkers
// to each partition's leader on the inter-broker listener (this broker
// included, over the same path), retried every `retry_backoff` until every
// partition has it. A partition whose topic was deleted needs no marker.
// Markers are never given up on: the transaction cannot complete without
// them, and the partitions' last stable offsets wait for them.
//
// Threading: one channel per reactor shard, used on that shard's thread; the
// rpc clients run on the same executor, and `done` is called there.
#include <asio/any_io_executor.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "metadata/metadata_cache.h"
#include "net/kafka_rpc_client.h"
#include "storage/topic_partition.h"

namespace samsa::coordinator::txn {

struct txn_marker {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    bool commit = false;
    int32_t coordinator_epoch = 0;
    std::set<storage::topic_partition> partitions;
};

class txn_marker_channel {
  public:
    txn_marker_channel(asio::any_io_executor ex, const metadata::metadata_cache& metadata,
                       std::string listener_name, int32_t local_node_id,
                       std::chrono::milliseconds request_timeout,
                       std::shared_ptr<const security::client_security> security = nullptr,
                       std::chrono::milliseconds retry_backoff = std::chrono::milliseconds(100));
    ~txn_marker_channel();
    txn_marker_channel(const txn_marker_channel&) = delete;
    txn_marker_channel& operator=(const txn_marker_channel&) = delete;

    // `done()` once every partition has the marker (or is gone).
    void write(txn_marker marker, std::function<void()> done);
    // Markers still being written, for the log and tests.
    size_t in_flight() const { return _jobs; }

  private:
    struct job;
    void attempt(const std::shared_ptr<job>& j);
    void retry_later(const std::shared_ptr<job>& j);
    std::shared_ptr<net::kafka_rpc_client> client_for(node_id node, const std::string& host,
                                                      uint16_t port);

    asio::any_io_executor _ex;
    const metadata::metadata_cache& _metadata;
    std::string _listener;
    int32_t _local_node_id;
    std::chrono::milliseconds _request_timeout;
    std::shared_ptr<const security::client_security> _security;
    std::chrono::milliseconds _retry_backoff;
    std::map<node_id, std::shared_ptr<net::kafka_rpc_client>> _clients;
    size_t _jobs = 0;
    std::shared_ptr<char> _alive = std::make_shared<char>();
};

}  // namespace samsa::coordinator::txn
