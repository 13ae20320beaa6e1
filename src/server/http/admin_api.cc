#include "server/http/admin_api.h"

#include <openssl/evp.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>

#include "common/logging/loggers.h"
#include "metadata/config_view.h"
#include "metadata/metadata_image.h"
#include "server/broker_context.h"
#include "server/http/group_figures.h"
#include "server/http/json_response.h"
#include "server/http/partition_figures.h"
#include "server/http/record_browser.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::http {

namespace {

using nlohmann::json;

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
    return {{"node_id", b.id.value()}, {"rack", b.rack ? json(*b.rack) : json(nullptr)},
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

node_id active_controller(const observed_node& node, const metadata::metadata_image& image) {
    if (node.quorum) {
        return node.quorum->leader().leader;
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
                               {"active_controller", active_controller(node, *image).value()},
                               {"metadata_offset", image->offset},
                               {"brokers", brokers_array(*image)},
                               {"topic_count", image->topics_by_name.size()},
                               {"partition_count", partitions},
                               {"admin_writes", node.admin_writes}});
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
            offline += !p.leader.is_valid();
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
                   {"leader", p.leader.value()},
                   {"leader_epoch", p.leader_epoch},
                   {"replicas", node_numbers(p.replicas)},
                   {"isr", node_numbers(p.isr)},
                   {"offline_replicas", node_numbers(p.offline_replicas)}};
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

namespace {

std::string base64(const std::string& raw) {
    std::string out(4 * ((raw.size() + 2) / 3), '\0');
    const int n =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                        reinterpret_cast<const unsigned char*>(raw.data()), int(raw.size()));
    out.resize(size_t(std::max(0, n)));
    return out;
}

json optional_base64(const std::optional<std::string>& v) {
    return v ? json(base64(*v)) : json(nullptr);
}

// `name` in a query string "a=1&b=2" (values are digits here: no decoding).
std::optional<int64_t> query_number(std::string_view query, std::string_view name) {
    while (!query.empty()) {
        const auto amp = query.find('&');
        const auto part = query.substr(0, amp);
        if (part.size() > name.size() && part.substr(0, name.size()) == name &&
            part[name.size()] == '=') {
            const auto v = part.substr(name.size() + 1);
            int64_t n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec == std::errc() && end == v.data() + v.size()) {
                return n;
            }
            return std::nullopt;
        }
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    }
    return std::nullopt;
}

}  // namespace

http_response records_json(const observed_node& node, std::string_view topic, int32_t partition,
                           std::string_view query) {
    if (!node.broker->replicas) {
        return json_response(404, {{"error", "no partitions on this node"}});
    }
    browse_request req;
    req.topic = std::string(topic);
    req.partition = partition;
    req.offset = query_number(query, "offset");
    req.timestamp = query_number(query, "timestamp");
    req.limit = size_t(std::clamp<int64_t>(query_number(query, "limit").value_or(50), 1, 500));
    const auto image = node.broker->metadata.read();
    const auto page = browse_records(*node.broker->replicas, *image, req, std::chrono::seconds(5));
    if (page.error != error_code::none) {
        const int status = page.error == error_code::unknown_topic_or_partition ? 404 : 409;
        return json_response(status,
                             {{"error", error_name(page.error)}, {"message", page.message}});
    }
    json records = json::array();
    for (const auto& r : page.records) {
        json headers = json::array();
        for (const auto& [k, v] : r.headers) {
            headers.push_back({{"key", k}, {"value_base64", optional_base64(v)}});
        }
        records.push_back({{"offset", r.offset},
                           {"timestamp", r.timestamp},
                           {"key_base64", optional_base64(r.key)},
                           {"value_base64", optional_base64(r.value)},
                           {"headers", headers}});
    }
    return json_response(200, {{"topic", req.topic},
                               {"partition", partition},
                               {"start_offset", page.start_offset},
                               {"log_start_offset", page.log_start_offset},
                               {"high_watermark", page.high_watermark},
                               {"records", records}});
}

http_response topic_route(const observed_node& node, std::string_view rest,
                          std::string_view query) {
    // "<name>" or "<name>/partitions/<p>/records"
    constexpr std::string_view k_partitions = "/partitions/";
    constexpr std::string_view k_records = "/records";
    const auto slash = rest.find('/');
    if (slash == std::string_view::npos) {
        return topic_json(node, rest);
    }
    const auto name = rest.substr(0, slash);
    auto tail = rest.substr(slash);
    if (tail.size() > k_partitions.size() + k_records.size() &&
        tail.substr(0, k_partitions.size()) == k_partitions &&
        tail.substr(tail.size() - k_records.size()) == k_records) {
        const auto p =
            tail.substr(k_partitions.size(), tail.size() - k_partitions.size() - k_records.size());
        int32_t partition = -1;
        const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), partition);
        if (ec == std::errc() && end == p.data() + p.size()) {
            return records_json(node, name, partition, query);
        }
    }
    return json_response(404, {{"error", "not found"}});
}

http_response groups_json(const observed_node& node) {
    const auto image = node.broker->metadata.read();
    figures_by_partition logs;
    if (node.broker->replicas) {
        logs = gather_partition_figures(*node.broker->replicas, *image, std::chrono::seconds(5));
    }
    json out = json::array();
    for (const auto& g : gather_group_figures(*node.broker, logs, std::chrono::seconds(5))) {
        json offsets = json::array();
        int64_t total = 0;
        bool lag_known = !g.offsets.empty();
        for (const auto& o : g.offsets) {
            offsets.push_back({{"topic", o.tp.topic},
                               {"partition", o.tp.partition},
                               {"committed_offset", o.committed},
                               {"lag", o.lag ? json(*o.lag) : json(nullptr)}});
            total += o.lag.value_or(0);
            lag_known = lag_known && o.lag.has_value();
        }
        out.push_back({{"group_id", g.group_id},
                       {"protocol_type", g.protocol_type},
                       {"state", g.state},
                       {"lag", lag_known ? json(total) : json(nullptr)},
                       {"offsets", offsets}});
    }
    return json_response(200, out);
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

http_response configs_json(const observed_node& node) {
    const auto image = node.broker->metadata.read();
    const auto effective = metadata::effective_broker_config(node.broker->config->values, *image,
                                                             node.broker->settings.node_id);
    json configs = json::array();
    for (const auto& e : metadata::describe_broker_configs(effective)) {
        configs.push_back({{"name", e.name},
                           {"value", e.sensitive || !e.value ? json(nullptr) : json(*e.value)},
                           {"source", std::string(config::source_name(e.source))},
                           {"read_only", e.read_only},
                           {"sensitive", e.sensitive}});
    }
    return json_response(200, {{"node_id", node.broker->settings.node_id}, {"configs", configs}});
}

http_response loggers_json() {
    json loggers = json::array();
    for (const auto& l : logging::levels()) {
        loggers.push_back({{"name", l.name}, {"level", l.level}});
    }
    return json_response(200, {{"loggers", loggers}});
}

}  // namespace samsa::server::http
