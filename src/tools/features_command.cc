// `samsa features describe`: the cluster's feature flags as
// kafka-features.sh describe prints them (KIP-584), from ApiVersions v3 of a
// bootstrap server: each feature the broker supports, its finalized level
// and the epoch of the metadata that finalized it, a line each:
//
//   Feature: metadata.version	SupportedMinVersion: 3.3-IV3	SupportedMaxVersion: 3.6-IV2
//     FinalizedVersionLevel: 3.6-IV2	Epoch: 14   (one line, tab-separated)
//
// metadata.version levels print as Kafka names them; other features as
// numbers. Upgrading features (UpdateFeatures) is not served.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "metadata/metadata_version.h"
#include "net/blocking_call.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "version.h"

namespace samsa::tools {

namespace {

constexpr const char* k_client_id = "samsa-features";

struct features_options {
    client_options client;
};

std::string level_text(const std::string& feature, int16_t level) {
    return feature == metadata::metadata_version_feature ? metadata::metadata_version_name(level)
                                                         : std::to_string(level);
}

int run_features_describe(const features_options& o) {
    auto to = bootstrap_target(o.client, k_client_id);
    if (!to) {
        return fail(to.err());
    }
    protocol::api_versions_request req;
    req.client_software_name = "samsa";
    req.client_software_version = std::string(k_version);
    auto resp = net::call_blocking<protocol::api_versions_response>(*to, req, 3);
    if (!resp) {
        return fail(resp.err());
    }
    if (resp->error_code != 0) {
        return fail(std::string("ApiVersions failed: ") +
                    std::string(error_name(error_code(resp->error_code))));
    }
    std::map<std::string, int16_t> finalized;
    for (const auto& f : resp->finalized_features) {
        finalized[f.name] = f.max_version_level;
    }
    std::vector<const protocol::api_versions_response::supported_feature_key*> supported;
    for (const auto& f : resp->supported_features) {
        supported.push_back(&f);
    }
    std::sort(supported.begin(), supported.end(),
              [](const auto* a, const auto* b) { return a->name < b->name; });
    const std::string epoch = resp->finalized_features_epoch >= 0
                                  ? std::to_string(resp->finalized_features_epoch)
                                  : std::string("-");
    for (const auto* f : supported) {
        const auto level = finalized.find(f->name);
        std::printf(
            "Feature: %s\tSupportedMinVersion: %s\tSupportedMaxVersion: %s\t"
            "FinalizedVersionLevel: %s\tEpoch: %s\n",
            f->name.c_str(), level_text(f->name, f->min_version).c_str(),
            level_text(f->name, f->max_version).c_str(),
            level_text(f->name, level == finalized.end() ? 0 : level->second).c_str(),
            epoch.c_str());
    }
    return 0;
}

}  // namespace

tool_command add_features_command(CLI::App& app) {
    auto o = std::make_shared<features_options>();
    auto* cmd = add_verb(app, "features", "The cluster's feature flags (kafka-features.sh)");
    add_client_options(*cmd, o->client);
    cmd->add_subcommand("describe", "Describe the supported and finalized features")->fallthrough();
    cmd->require_subcommand(1);
    return {cmd, [o] { return run_features_describe(*o); }};
}

}  // namespace samsa::tools
