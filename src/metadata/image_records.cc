#include "metadata/image_records.h"

#include "metadata/acl_changes.h"

namespace samsa::metadata {

std::vector<metadata_record> image_to_records(const metadata_image& image) {
    std::vector<metadata_record> out;
    for (const auto& [name, level] : image.features) {
        protocol::feature_level_record f;
        f.name = name;
        f.feature_level = level;
        out.emplace_back(std::move(f));
    }
    for (const auto& [id, b] : image.brokers) {
        protocol::register_broker_record r;
        r.broker_id = b.id;
        r.incarnation_id = b.incarnation_id;
        r.broker_epoch = b.epoch;
        r.rack = b.rack;
        r.fenced = b.fenced;
        r.in_controlled_shutdown = b.in_controlled_shutdown;
        for (const auto& e : b.endpoints) {
            auto& ep = r.end_points.emplace_back();
            ep.name = e.listener_name;
            ep.host = e.host;
            ep.port = e.port;
            ep.security_protocol = e.security_protocol;
        }
        for (const auto& [name, range] : b.supported_features) {
            auto& f = r.features.emplace_back();
            f.name = name;
            f.min_supported_version = range.first;
            f.max_supported_version = range.second;
        }
        out.emplace_back(std::move(r));
    }
    for (const auto& [name, topic] : image.topics_by_name) {
        protocol::topic_record t;
        t.name = topic->name;
        t.topic_id = topic->id;
        out.emplace_back(std::move(t));
        for (const auto& p : topic->partitions) {
            protocol::partition_record r;
            r.partition_id = p.partition;
            r.topic_id = topic->id;
            r.replicas = p.replicas;
            r.isr = p.isr;
            r.removing_replicas = p.removing_replicas;
            r.adding_replicas = p.adding_replicas;
            r.leader = p.leader;
            r.leader_recovery_state = p.leader_recovery_state;
            r.leader_epoch = p.leader_epoch;
            r.partition_epoch = p.partition_epoch;
            out.emplace_back(std::move(r));
        }
    }
    auto configs = [&](config_resource_type type, const auto& by_resource) {
        for (const auto& [resource, entries] : by_resource) {
            for (const auto& [key, value] : entries) {
                protocol::config_record c;
                c.resource_type = int8_t(type);
                c.resource_name = resource;
                c.name = key;
                c.value = value;
                out.emplace_back(std::move(c));
            }
        }
    };
    configs(config_resource_type::topic, image.topic_configs);
    configs(config_resource_type::broker, image.broker_configs);
    configs(config_resource_type::group, image.group_configs);
    if (image.producer_ids.next_producer_id > 0) {
        protocol::producer_ids_record r;
        r.broker_id = image.producer_ids.broker_id;
        r.broker_epoch = image.producer_ids.broker_epoch;
        r.next_producer_id = image.producer_ids.next_producer_id;
        out.emplace_back(r);
    }
    for (const auto& [user, by_mechanism] : image.scram_credentials) {
        for (const auto& [mechanism, c] : by_mechanism) {
            protocol::user_scram_credential_record r;
            r.name = user;
            r.mechanism = int8_t(mechanism);
            r.salt = c.salt;
            r.stored_key = c.stored_key;
            r.server_key = c.server_key;
            r.iterations = c.iterations;
            out.emplace_back(std::move(r));
        }
    }
    for (const auto& [id, binding] : image.acls) {
        out.emplace_back(record_of(id, binding));
    }
    for (const auto& [entity, values] : image.client_quotas) {
        for (const auto& [key, value] : values) {
            protocol::client_quota_record r;
            for (const auto& [type, name] : entity) {
                auto& e = r.entity.emplace_back();
                e.entity_type = type;
                e.entity_name = name;
            }
            r.key = key;
            r.value = value;
            out.emplace_back(std::move(r));
        }
    }
    return out;
}

}  // namespace samsa::metadata
