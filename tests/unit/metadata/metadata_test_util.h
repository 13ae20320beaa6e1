#pragma once
// Helpers for the metadata room's tests: temporary directories, a one-node
// broker config, and shorthands that build metadata records.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/config/broker_config.h"
#include "metadata/metadata_delta.h"
#include "metadata/metadata_record_serde.h"

namespace samsa::metadata::testing {

class temp_dir {
  public:
    temp_dir() {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "samsa-metadata-XXXXXX").string();
        char* p = ::mkdtemp(tmpl.data());
        _path = p ? std::string(p) : std::string();
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(_path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    const std::string& path() const { return _path; }

  private:
    std::string _path;
};

// A valid one-node (broker + controller) config with `changes` applied.
inline config::broker_config one_node_config(
    const std::map<std::string, std::string>& changes = {},
    const std::map<std::string, std::string>& overrides = {}) {
    std::map<std::string, std::string> file = {
        {"process.roles", "broker,controller"},
        {"node.id", "1"},
        {"controller.quorum.voters", "1@localhost:9093"},
        {"listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"},
        {"controller.listener.names", "CONTROLLER"},
    };
    for (const auto& [k, v] : changes) {
        file[k] = v;
    }
    auto r = config::make_broker_config(file, overrides);
    return r ? r->config : config::broker_config{};
}

inline uuid test_uuid(uint8_t seed) {
    uuid u;
    for (size_t i = 0; i < u.data.size(); ++i) {
        u.data[i] = uint8_t(seed + i);
    }
    return u;
}

inline protocol::topic_record topic_rec(const std::string& name, const uuid& id) {
    protocol::topic_record r;
    r.name = name;
    r.topic_id = id;
    return r;
}

inline protocol::partition_record partition_rec(const uuid& topic, int32_t partition,
                                                std::vector<int32_t> replicas) {
    protocol::partition_record r;
    r.topic_id = topic;
    r.partition_id = partition;
    r.replicas = to_node_ids(replicas);
    r.isr = r.replicas;
    r.leader = r.replicas.empty() ? no_node : r.replicas.front();
    r.leader_epoch = 0;
    r.partition_epoch = 0;
    return r;
}

inline protocol::config_record config_rec(config_resource_type type, const std::string& resource,
                                          const std::string& key,
                                          std::optional<std::string> value) {
    protocol::config_record r;
    r.resource_type = int8_t(type);
    r.resource_name = resource;
    r.name = key;
    r.value = std::move(value);
    return r;
}

inline protocol::register_broker_record broker_rec(int32_t id, int64_t epoch, bool fenced = false) {
    protocol::register_broker_record r;
    r.broker_id = node_id{id};
    r.broker_epoch = epoch;
    r.incarnation_id = test_uuid(uint8_t(id));
    r.fenced = fenced;
    auto& ep = r.end_points.emplace_back();
    ep.name = "PLAINTEXT";
    ep.host = "localhost";
    ep.port = uint16_t(9090 + id);
    ep.security_protocol = 0;
    r.rack = std::nullopt;
    return r;
}

// `records` applied in order on top of `base` (each must apply), as an image
// at offset 100.
inline std::shared_ptr<const metadata_image> apply_all(
    std::shared_ptr<const metadata_image> base, const std::vector<metadata_record>& records) {
    metadata_delta d(std::move(base));
    for (const auto& r : records) {
        EXPECT_TRUE(d.apply(r));
    }
    return d.build(100);
}

}  // namespace samsa::metadata::testing
