#pragma once
// An immutable snapshot of cluster metadata (docs/architecture.md, "Metadata"): brokers, topics
// with their partitions and configs, broker dynamic configs, feature levels and
// the next producer id block. Readers take the current image from the
// metadata_cache and never see it change; metadata_delta builds the next image
// from records (copy-on-write per topic: an unchanged topic_image is shared by
// both images, so the same pointer in prev and next means "unchanged"; config
// changes show in topic_configs instead).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/kafka_types.h"
#include "common/uuid.h"
#include "security/acl/authorizer.h"
#include "security/sasl/scram.h"

namespace samsa::metadata {

struct broker_endpoint {
    std::string listener_name;  // upper case, e.g. "PLAINTEXT"
    std::string host;
    uint16_t port = 0;
    int16_t security_protocol = 0;  // Kafka's SecurityProtocol id
};

struct broker_registration {
    node_id id = no_node;
    uuid incarnation_id;
    // The offset of its RegisterBrokerRecord, as Kafka assigns it.
    int64_t epoch = -1;
    std::vector<broker_endpoint> endpoints;
    std::optional<std::string> rack;
    bool fenced = false;
    bool in_controlled_shutdown = false;
    // The feature levels it supports, from its registration (KIP-584): an
    // UpdateFeatures must stay within every broker's range.
    std::map<std::string, std::pair<int16_t, int16_t>> supported_features;

    const broker_endpoint* endpoint(const std::string& listener_name) const {
        for (const auto& e : endpoints) {
            if (e.listener_name == listener_name) {
                return &e;
            }
        }
        return nullptr;
    }
};

// Kafka's sentinel for "leader unchanged" in PartitionChangeRecord (its
// default), where no_node (-1) means "no leader".
inline constexpr node_id no_leader_change{-2};

struct partition_registration {
    int32_t partition = 0;
    std::vector<node_id> replicas;
    std::vector<node_id> isr;
    std::vector<node_id> offline_replicas;
    std::vector<node_id> removing_replicas;  // reassignment in progress
    std::vector<node_id> adding_replicas;
    node_id leader = no_node;
    int32_t leader_epoch = 0;
    int32_t partition_epoch = 0;
    int8_t leader_recovery_state = 0;  // 0 recovered, 1 recovering

    bool operator==(const partition_registration&) const = default;
};

// A client quota entity (KIP-546): entity type ("user", "client-id" or
// "ip") to a name, or to nullopt for that type's default.
using client_quota_entity = std::map<std::string, std::optional<std::string>>;

struct topic_image {
    std::string name;
    uuid id;
    std::vector<partition_registration> partitions;  // index = partition id
};

// The next block of producer ids (ProducerIdsRecord): ids below
// next_producer_id have been handed out.
struct producer_ids_state {
    node_id broker_id = no_node;  // who took the last block
    int64_t broker_epoch = -1;
    int64_t next_producer_id = 0;
};

class metadata_image {
  public:
    std::string cluster_id;
    node_id controller_id = no_node;
    int64_t offset = -1;  // last metadata log offset applied
    std::map<node_id, broker_registration> brokers;
    std::map<std::string, std::shared_ptr<const topic_image>> topics_by_name;
    std::unordered_map<uuid, std::shared_ptr<const topic_image>, uuid_hash> topics_by_id;
    // Topic config overrides by topic name (ConfigRecords of resource type
    // TOPIC), raw strings as set; every other key resolves from the broker
    // config. A topic's entry goes with the topic.
    std::map<std::string, std::map<std::string, std::string>> topic_configs;
    // Dynamic broker configs by resource name: "" is the cluster-wide default,
    // "<node id>" one broker. Raw strings as set.
    std::map<std::string, std::map<std::string, std::string>> broker_configs;
    // Per-group configs by group id (ConfigRecords of resource type GROUP,
    // KIP-848), raw strings as set. Kept whether or not the group exists, as
    // Kafka keeps them.
    std::map<std::string, std::map<std::string, std::string>> group_configs;
    // Finalized feature levels (FeatureLevelRecord), e.g. "metadata.version".
    std::map<std::string, int16_t> features;
    producer_ids_state producer_ids;
    // SCRAM credentials (UserScramCredentialRecord, KIP-554) by user, then
    // mechanism: salt, StoredKey, ServerKey and iterations, never a password.
    std::map<std::string,
             std::map<security::sasl::scram_mechanism, security::sasl::scram_credential>>
        scram_credentials;
    // ACLs (AccessControlEntryRecord, KIP-801) by id, and by resource type for
    // the authorizer.
    std::map<uuid, security::acl::acl_binding> acls;
    security::acl::acl_cache acl_cache;
    // Client quotas (ClientQuotaRecord): each entity's quota keys and values
    // (producer_byte_rate, consumer_byte_rate, ...).
    std::map<client_quota_entity, std::map<std::string, double>> client_quotas;
    bool has_client_quota_key(std::string_view key) const {
        for (const auto& [entity, values] : client_quotas) {
            if (values.count(std::string(key))) {
                return true;
            }
        }
        return false;
    }

    std::optional<security::sasl::scram_credential> find_scram_credential(
        const std::string& user, security::sasl::scram_mechanism m) const {
        auto u = scram_credentials.find(user);
        if (u == scram_credentials.end()) {
            return std::nullopt;
        }
        auto c = u->second.find(m);
        if (c == u->second.end()) {
            return std::nullopt;
        }
        return c->second;
    }

    const topic_image* topic(const std::string& name) const {
        auto it = topics_by_name.find(name);
        return it == topics_by_name.end() ? nullptr : it->second.get();
    }
    const topic_image* topic(const uuid& id) const {
        auto it = topics_by_id.find(id);
        return it == topics_by_id.end() ? nullptr : it->second.get();
    }

    // A topic's or a group's dynamic configs as set; empty when it has none.
    const std::map<std::string, std::string>& topic_overrides(const std::string& topic) const {
        return overrides_in(topic_configs, topic);
    }
    const std::map<std::string, std::string>& group_overrides(const std::string& group) const {
        return overrides_in(group_configs, group);
    }

  private:
    static const std::map<std::string, std::string>& overrides_in(
        const std::map<std::string, std::map<std::string, std::string>>& by_resource,
        const std::string& name) {
        static const std::map<std::string, std::string> none;
        auto it = by_resource.find(name);
        return it == by_resource.end() ? none : it->second;
    }
};

// Kafka's internal topics (Topic.isInternal): __consumer_offsets and
// __transaction_state. Metadata reports them with is_internal.
bool is_internal_topic(const std::string& name);

// The metadata log's own topic; never a regular topic.
inline constexpr const char* cluster_metadata_topic = "__cluster_metadata";

}  // namespace samsa::metadata
