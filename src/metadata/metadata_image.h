#pragma once
// An immutable snapshot of cluster metadata (DESIGN.md §6): brokers, topics
// with their partitions, and configs. Readers take the current image from the
// metadata_cache and never see it change; the metadata log replayer builds a new
// image and swaps it in.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/uuid.h"

namespace samsa::metadata {

struct broker_endpoint {
    std::string listener_name;  // upper case, e.g. "PLAINTEXT"
    std::string host;
    uint16_t port = 0;
    int16_t security_protocol = 0;  // Kafka's SecurityProtocol id
};

struct broker_registration {
    int32_t id = -1;
    uuid incarnation_id;
    std::vector<broker_endpoint> endpoints;
    std::optional<std::string> rack;
    bool fenced = false;
    bool in_controlled_shutdown = false;

    const broker_endpoint* endpoint(const std::string& listener_name) const {
        for (const auto& e : endpoints) {
            if (e.listener_name == listener_name) {
                return &e;
            }
        }
        return nullptr;
    }
};

struct partition_registration {
    int32_t partition = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> isr;
    std::vector<int32_t> offline_replicas;
    int32_t leader = -1;
    int32_t leader_epoch = 0;
    int32_t partition_epoch = 0;
};

struct topic_image {
    std::string name;
    uuid id;
    std::vector<partition_registration> partitions;  // index = partition id
};

class metadata_image {
  public:
    std::string cluster_id;
    int32_t controller_id = -1;
    int64_t offset = -1;  // last metadata log offset applied
    std::map<int32_t, broker_registration> brokers;
    std::map<std::string, std::shared_ptr<const topic_image>> topics_by_name;
    std::unordered_map<uuid, std::shared_ptr<const topic_image>, uuid_hash> topics_by_id;
    // Dynamic topic config overrides (ConfigRecords), by topic name.
    std::map<std::string, std::map<std::string, std::string>> topic_configs;

    const topic_image* topic(const std::string& name) const {
        auto it = topics_by_name.find(name);
        return it == topics_by_name.end() ? nullptr : it->second.get();
    }
    const topic_image* topic(const uuid& id) const {
        auto it = topics_by_id.find(id);
        return it == topics_by_id.end() ? nullptr : it->second.get();
    }
};

// Kafka's internal topics: clients may not produce to them directly or delete them.
bool is_internal_topic(const std::string& name);

}  // namespace samsa::metadata
