#pragma once
// Holds the current metadata_image. Any thread may read(); the metadata log
// replayer alone calls update(). Readers keep the shared_ptr for as long as
// they need a consistent view.
#include <atomic>
#include <memory>
#include <string>

#include "common/client_quotas.h"
#include "metadata/metadata_image.h"

namespace samsa::metadata {

class metadata_cache {
  public:
    metadata_cache() : _image(std::make_shared<const metadata_image>()) {}

    std::shared_ptr<const metadata_image> read() const {
        return _image.load(std::memory_order_acquire);
    }
    // Whether the current image names `node` the leader of the partition.
    bool names_leader(const std::string& topic, int32_t partition, node_id node) const {
        auto image = read();
        const auto* t = image->topic(topic);
        return t && partition >= 0 && size_t(partition) < t->partitions.size() &&
               t->partitions[size_t(partition)].leader == node;
    }
    void update(std::shared_ptr<const metadata_image> image) {
        _has_client_quotas.store(!image->client_quotas.empty(), std::memory_order_relaxed);
        _has_request_quotas.store(image->has_client_quota_key(samsa::quota::request_percentage),
                                  std::memory_order_relaxed);
        _image.store(std::move(image), std::memory_order_release);
    }
    // Whether any client quota is set: a request path asks this, not the
    // image, to skip quota work.
    bool has_client_quotas() const { return _has_client_quotas.load(std::memory_order_relaxed); }
    // Whether any request_percentage quota is set: only then are requests
    // timed (common/busy_time.h).
    bool has_request_quotas() const { return _has_request_quotas.load(std::memory_order_relaxed); }

  private:
    std::atomic<std::shared_ptr<const metadata_image>> _image;
    std::atomic<bool> _has_client_quotas{false};
    std::atomic<bool> _has_request_quotas{false};
};

}  // namespace samsa::metadata
