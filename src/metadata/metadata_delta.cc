#include "metadata/metadata_delta.h"

#include <fmt/format.h>

#include <algorithm>

#include "metadata/acl_changes.h"

namespace samsa::metadata {

namespace {

error inconsistent(std::string message) {
    return error(error_code::corrupt_message, std::move(message));
}

}  // namespace

metadata_delta::metadata_delta(std::shared_ptr<const metadata_image> base)
    : _next(std::make_shared<metadata_image>(*base)) {}

status metadata_delta::apply(const metadata_record& record) {
    return std::visit([this](const auto& r) { return apply(r); }, record);
}

std::shared_ptr<const metadata_image> metadata_delta::build(int64_t offset) {
    _next->offset = offset;
    _owned.clear();
    return std::move(_next);
}

topic_image* metadata_delta::mutable_topic(const uuid& id) {
    auto it = _next->topics_by_id.find(id);
    if (it == _next->topics_by_id.end()) {
        return nullptr;
    }
    if (_owned.count(it->second.get())) {
        return const_cast<topic_image*>(it->second.get());
    }
    auto copy = std::make_shared<topic_image>(*it->second);
    _owned.insert(copy.get());
    _next->topics_by_name[copy->name] = copy;
    it->second = copy;
    return copy.get();
}

status metadata_delta::apply(const protocol::register_broker_record& r) {
    broker_registration b;
    b.id = r.broker_id;
    b.incarnation_id = r.incarnation_id;
    b.epoch = r.broker_epoch;
    b.rack = r.rack;
    b.fenced = r.fenced;
    b.in_controlled_shutdown = r.in_controlled_shutdown;
    for (const auto& e : r.end_points) {
        b.endpoints.push_back({e.name, e.host, e.port, e.security_protocol});
    }
    for (const auto& f : r.features) {
        b.supported_features[f.name] = {f.min_supported_version, f.max_supported_version};
    }
    _next->brokers[b.id] = std::move(b);
    return {};
}

status metadata_delta::apply(const protocol::unregister_broker_record& r) {
    auto it = _next->brokers.find(r.broker_id);
    if (it == _next->brokers.end() || it->second.epoch != r.broker_epoch) {
        return inconsistent(
            fmt::format("unregistration of broker {} epoch {}, which is not "
                        "registered with that epoch",
                        r.broker_id, r.broker_epoch));
    }
    _next->brokers.erase(it);
    return {};
}

status metadata_delta::apply(const protocol::fence_broker_record& r) {
    auto it = _next->brokers.find(r.id);
    if (it == _next->brokers.end() || it->second.epoch != r.epoch) {
        return inconsistent(fmt::format("cannot fence broker {} epoch {}", r.id, r.epoch));
    }
    it->second.fenced = true;
    return {};
}

status metadata_delta::apply(const protocol::unfence_broker_record& r) {
    auto it = _next->brokers.find(r.id);
    if (it == _next->brokers.end() || it->second.epoch != r.epoch) {
        return inconsistent(fmt::format("cannot unfence broker {} epoch {}", r.id, r.epoch));
    }
    it->second.fenced = false;
    return {};
}

status metadata_delta::apply(const protocol::broker_registration_change_record& r) {
    auto it = _next->brokers.find(r.broker_id);
    if (it == _next->brokers.end() || it->second.epoch != r.broker_epoch) {
        return inconsistent(
            fmt::format("registration change of broker {} epoch {}, which is "
                        "not registered with that epoch",
                        r.broker_id, r.broker_epoch));
    }
    // Kafka's BrokerRegistrationFencingChange: 1 fence, -1 unfence, 0 none;
    // BrokerRegistrationInControlledShutdownChange: 1 enters it, 0 none.
    if (r.fenced == 1) {
        it->second.fenced = true;
    } else if (r.fenced == -1) {
        it->second.fenced = false;
    }
    if (r.in_controlled_shutdown == 1) {
        it->second.in_controlled_shutdown = true;
    }
    return {};
}

status metadata_delta::apply(const protocol::topic_record& r) {
    if (_next->topics_by_id.count(r.topic_id)) {
        return inconsistent(fmt::format("topic id {} already exists", r.topic_id.to_string()));
    }
    if (_next->topics_by_name.count(r.name)) {
        return inconsistent(fmt::format("topic {} already exists", r.name));
    }
    auto t = std::make_shared<topic_image>();
    t->name = r.name;
    t->id = r.topic_id;
    _owned.insert(t.get());
    _next->topics_by_name[r.name] = t;
    _next->topics_by_id[r.topic_id] = t;
    return {};
}

status metadata_delta::apply(const protocol::partition_record& r) {
    topic_image* t = mutable_topic(r.topic_id);
    if (!t) {
        return inconsistent(fmt::format("partition {} of unknown topic id {}", r.partition_id,
                                        r.topic_id.to_string()));
    }
    if (r.partition_id < 0) {
        return inconsistent(fmt::format("negative partition id {}", r.partition_id));
    }
    if (size_t(r.partition_id) >= t->partitions.size()) {
        size_t old = t->partitions.size();
        t->partitions.resize(size_t(r.partition_id) + 1);
        // Records of one batch may name partitions out of order; the holes are
        // filled before the image is built.
        for (size_t i = old; i < t->partitions.size(); ++i) {
            t->partitions[i].partition = int32_t(i);
        }
    }
    auto& p = t->partitions[size_t(r.partition_id)];
    p.partition = r.partition_id;
    p.replicas = r.replicas;
    p.isr = r.isr;
    p.removing_replicas = r.removing_replicas;
    p.adding_replicas = r.adding_replicas;
    p.leader = r.leader;
    p.leader_epoch = r.leader_epoch;
    p.partition_epoch = r.partition_epoch;
    p.leader_recovery_state = r.leader_recovery_state;
    return {};
}

status metadata_delta::apply(const protocol::partition_change_record& r) {
    topic_image* t = mutable_topic(r.topic_id);
    if (!t || r.partition_id < 0 || size_t(r.partition_id) >= t->partitions.size()) {
        return inconsistent(fmt::format("change of unknown partition {} of topic id {}",
                                        r.partition_id, r.topic_id.to_string()));
    }
    auto& p = t->partitions[size_t(r.partition_id)];
    if (r.isr) {
        p.isr = *r.isr;
    }
    if (r.replicas) {
        p.replicas = *r.replicas;
    }
    if (r.removing_replicas) {
        p.removing_replicas = *r.removing_replicas;
    }
    if (r.adding_replicas) {
        p.adding_replicas = *r.adding_replicas;
    }
    if (r.leader != no_leader_change) {
        p.leader = r.leader;
        p.leader_epoch += 1;
    }
    if (r.leader_recovery_state != -1) {
        p.leader_recovery_state = r.leader_recovery_state;
    }
    p.partition_epoch += 1;
    return {};
}

status metadata_delta::apply(const protocol::remove_topic_record& r) {
    auto it = _next->topics_by_id.find(r.topic_id);
    if (it == _next->topics_by_id.end()) {
        return inconsistent(fmt::format("removal of unknown topic id {}", r.topic_id.to_string()));
    }
    _next->topics_by_name.erase(it->second->name);
    _next->topic_configs.erase(it->second->name);
    _owned.erase(it->second.get());
    _next->topics_by_id.erase(it);
    return {};
}

status metadata_delta::apply(const protocol::config_record& r) {
    std::map<std::string, std::map<std::string, std::string>>* resources = nullptr;
    switch (config_resource_type(r.resource_type)) {
        case config_resource_type::topic: {
            if (!_next->topics_by_name.count(r.resource_name)) {
                return inconsistent(
                    fmt::format("config {} of unknown topic {}", r.name, r.resource_name));
            }
            resources = &_next->topic_configs;
            break;
        }
        case config_resource_type::broker:
            resources = &_next->broker_configs;
            break;
        case config_resource_type::group:
            resources = &_next->group_configs;
            break;
        default:
            // Client-metrics configs are not kept: Samsa never writes them.
            return {};
    }
    auto& configs = (*resources)[r.resource_name];
    if (r.value) {
        configs[r.name] = *r.value;
    } else {
        configs.erase(r.name);
    }
    if (configs.empty()) {
        resources->erase(r.resource_name);
    }
    return {};
}

status metadata_delta::apply(const protocol::feature_level_record& r) {
    if (r.feature_level == 0) {
        _next->features.erase(r.name);
    } else {
        _next->features[r.name] = r.feature_level;
    }
    return {};
}

status metadata_delta::apply(const protocol::producer_ids_record& r) {
    if (r.next_producer_id < _next->producer_ids.next_producer_id) {
        return inconsistent(fmt::format("producer id block would move back from {} to {}",
                                        _next->producer_ids.next_producer_id, r.next_producer_id));
    }
    _next->producer_ids = {r.broker_id, r.broker_epoch, r.next_producer_id};
    return {};
}

status metadata_delta::apply(const protocol::user_scram_credential_record& r) {
    const auto m = security::sasl::scram_mechanism(r.mechanism);
    if (m != security::sasl::scram_mechanism::sha256 &&
        m != security::sasl::scram_mechanism::sha512) {
        return inconsistent(fmt::format("SCRAM credential of {} has unknown mechanism {}", r.name,
                                        int(r.mechanism)));
    }
    _next->scram_credentials[r.name][m] = {r.salt, r.stored_key, r.server_key, r.iterations};
    return {};
}

status metadata_delta::apply(const protocol::remove_user_scram_credential_record& r) {
    auto u = _next->scram_credentials.find(r.name);
    if (u == _next->scram_credentials.end() ||
        u->second.erase(security::sasl::scram_mechanism(r.mechanism)) == 0) {
        return inconsistent(fmt::format("no SCRAM credential of {} with mechanism {} to remove",
                                        r.name, int(r.mechanism)));
    }
    if (u->second.empty()) {
        _next->scram_credentials.erase(u);
    }
    return {};
}

status metadata_delta::apply(const protocol::access_control_entry_record& r) {
    auto binding = acl_of(r);
    auto [it, added] = _next->acls.emplace(r.id, binding);
    if (!added) {
        return inconsistent(fmt::format("ACL {} is defined twice", r.id.to_string()));
    }
    _next->acl_cache.add(binding);
    return {};
}

status metadata_delta::apply(const protocol::remove_access_control_entry_record& r) {
    auto it = _next->acls.find(r.id);
    if (it == _next->acls.end()) {
        return inconsistent(fmt::format("no ACL {} to remove", r.id.to_string()));
    }
    _next->acl_cache.remove(it->second);
    _next->acls.erase(it);
    return {};
}

// As Kafka's ClientQuotaControlManager replays it: a removal drops the key
// (and the entity with its last key), anything else sets it.
status metadata_delta::apply(const protocol::client_quota_record& r) {
    client_quota_entity entity;
    for (const auto& e : r.entity) {
        entity[e.entity_type] = e.entity_name;
    }
    if (entity.empty()) {
        return inconsistent("client quota record names no entity");
    }
    if (!r.remove) {
        _next->client_quotas[entity][r.key] = r.value;
        return {};
    }
    auto it = _next->client_quotas.find(entity);
    if (it != _next->client_quotas.end()) {
        it->second.erase(r.key);
        if (it->second.empty()) {
            _next->client_quotas.erase(it);
        }
    }
    return {};
}

}  // namespace samsa::metadata
