#pragma once
// The broker config tests' helpers: the smallest valid configuration, edits
// of it, and the config it builds or the message it is refused with.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>

#include "common/config/broker_config.h"

namespace samsa::config::testing {

using kv = std::map<std::string, std::string>;

// The smallest valid one-node (broker + controller) configuration.
inline kv minimal() {
    return {
        {"process.roles", "broker,controller"},
        {"node.id", "1"},
        {"controller.quorum.voters", "1@localhost:9093"},
        {"listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"},
        {"controller.listener.names", "CONTROLLER"},
    };
}

inline kv with(kv base, const kv& changes) {
    for (const auto& [k, v] : changes) {
        base[k] = v;
    }
    return base;
}

inline kv without(kv base, const std::string& key) {
    base.erase(key);
    return base;
}

inline broker_config ok(const kv& file, const kv& overrides = {}) {
    auto r = make_broker_config(file, overrides);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.err().message);
    return r ? r->config : broker_config{};
}

inline std::string fail(const kv& file, const kv& overrides = {}) {
    auto r = make_broker_config(file, overrides);
    EXPECT_FALSE(r.has_value());
    if (r) {
        return {};
    }
    EXPECT_EQ(r.err().code, error_code::invalid_config);
    return r.err().message;
}

inline bool contains(const std::string& s, std::string_view part) {
    return s.find(part) != std::string::npos;
}

}  // namespace samsa::config::testing
