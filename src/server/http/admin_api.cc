#include "server/http/admin_api.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>

#include "metadata/metadata_image.h"
#include "server/broker_context.h"
#include "server/http/partition_figures.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::http {

namespace {

using nlohmann::json;

http_response json_response(int status, const json& j) {
    // Bytes that are not UTF-8 (a rack, a host) come out replaced, not thrown.
    return {status, "application/json",
            j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"};
}

std::string_view security_protocol_name(int16_t id) {
    switch (id) {
        case 0:
            return "PLAINTEXT";
        case 1:
            return "SSL";
        case 2:
            return "SASL_PLAINTEXT";
        case 3:
            return "SASL_SSL";
        default:
            return "UNKNOWN";
    }
}

json broker_json(const metadata::broker_registration& b) {
    json endpoints = json::array();
    for (const auto& e : b.endpoints) {
        endpoints.push_back({{"listener", e.listener_name},
                             {"host", e.host},
                             {"port", e.port},
                             {"security_protocol", security_protocol_name(e.security_protocol)}});
    }
    return {{"node_id", b.id},         {"rack", b.rack ? json(*b.rack) : json(nullptr)},
            {"fenced", b.fenced},      {"in_controlled_shutdown", b.in_controlled_shutdown},
            {"broker_epoch", b.epoch}, {"endpoints", endpoints}};
}

json brokers_array(const metadata::metadata_image& image) {
    json out = json::array();
    for (const auto& [id, b] : image.brokers) {
        out.push_back(broker_json(b));
    }
    return out;
}

int32_t active_controller(const observed_node& node, const metadata::metadata_image& image) {
    if (node.quorum) {
        return node.quorum->leader().leader.value();
    }
    return image.controller_id;
}

}  // namespace

http_response cluster_json(const observed_node& node) {
    const auto image = node.broker->metadata.read();
    size_t partitions = 0;
    for (const auto& [name, t] : image->topics_by_name) {
        partitions += t->partitions.size();
    }
    return json_response(200, {{"cluster_id", image->cluster_id},
                               {"active_controller", active_controller(node, *image)},
                               {"metadata_offset", image->offset},
                               {"brokers", brokers_array(*image)},
                               {"topic_count", image->topics_by_name.size()},
                               {"partition_count", partitions}});
}

http_response brokers_json(const observed_node& node) {
    return json_response(200, brokers_array(*node.broker->metadata.read()));
}

http_response topics_json(const observed_node& node) {
    const auto image = node.broker->metadata.read();
    json out = json::array();
    for (const auto& [name, t] : image->topics_by_name) {
        size_t under_replicated = 0, offline = 0;
        for (const auto& p : t->partitions) {
            under_replicated += p.isr.size() < p.replicas.size();
            offline += p.leader < 0;
        }
        out.push_back({{"name", name},
                       {"topic_id", t->id.to_string()},
                       {"is_internal", metadata::is_internal_topic(name)},
                       {"partitions", t->partitions.size()},
                       {"replication_factor",
                        t->partitions.empty() ? 0 : t->partitions.front().replicas.size()},
                       {"under_replicated_partitions", under_replicated},
                       {"offline_partitions", offline}});
    }
    return json_response(200, out);
}

http_response topic_json(const observed_node& node, std::string_view name) {
    const auto image = node.broker->metadata.read();
    const auto* t = image->topic(std::string(name));
    if (!t) {
        return json_response(404, {{"error", "UNKNOWN_TOPIC_OR_PARTITION"},
                                   {"message", "no topic named " + std::string(name)}});
    }
    figures_by_partition figures;
    if (node.broker->replicas) {
        figures = gather_partition_figures(*node.broker->replicas, *image, std::chrono::seconds(5));
    }
    json partitions = json::array();
    for (const auto& p : t->partitions) {
        json pj = {{"partition", p.partition},
                   {"leader", p.leader},
                   {"leader_epoch", p.leader_epoch},
                   {"replicas", p.replicas},
                   {"isr", p.isr},
                   {"offline_replicas", p.offline_replicas}};
        if (auto f = figures.find({t->name, p.partition}); f != figures.end()) {
            pj["log"] = {{"size_bytes", f->second.size_bytes},
                         {"log_start_offset", f->second.log_start_offset},
                         {"log_end_offset", f->second.log_end_offset},
                         {"high_watermark", f->second.high_watermark},
                         {"is_leader", f->second.leader}};
        }
        partitions.push_back(std::move(pj));
    }
    json configs = json::object();
    if (auto c = image->topic_configs.find(t->name); c != image->topic_configs.end()) {
        for (const auto& [k, v] : c->second) {
            configs[k] = v;
        }
    }
    return json_response(200, {{"name", t->name},
                               {"topic_id", t->id.to_string()},
                               {"is_internal", metadata::is_internal_topic(t->name)},
                               {"configs", configs},
                               {"partitions", partitions}});
}

http_response quorum_json(const observed_node& node) {
    if (!node.quorum) {
        return json_response(404, {{"error", "no metadata quorum on this node"}});
    }
    const auto le = node.quorum->leader();
    json voters = json::array();
    for (const auto& v : node.quorum->voters()) {
        voters.push_back({{"node_id", v.id}, {"host", v.host}, {"port", v.port}});
    }
    return json_response(200, {{"leader_id", le.leader.value()},
                               {"leader_epoch", le.epoch.value()},
                               {"high_watermark", node.quorum->known_high_watermark()},
                               {"applied_offset", node.quorum->applied_offset()},
                               {"voters", voters}});
}

}  // namespace samsa::server::http
