// `samsa features describe`: the cluster's feature flags as
// kafka-features.sh describe prints them (KIP-584), from ApiVersions v3 of a
// bootstrap server: each feature the broker supports, its finalized level
// and the epoch of the metadata that finalized it, a line each:
//
//   Feature: metadata.version	SupportedMinVersion: 3.3-IV3	SupportedMaxVersion: 3.6-IV2
//     FinalizedVersionLevel: 3.6-IV2	Epoch: 14   (one line, tab-separated)
//
// metadata.version levels print as Kafka names them; other features as
// numbers.
//
// `samsa features upgrade|downgrade|disable`: UpdateFeatures with
// kafka-features.sh's flags (--feature name=level, repeated; --metadata and
// --release-version for metadata.version; --unsafe; --dry-run) and its
// output, a line per feature ("metadata.version was upgraded to 14.", "Could
// not downgrade metadata.version to 7. <why>"), then on failure "N out of M
// operation(s) failed." and exit code 1.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metadata/metadata_version.h"
#include "net/blocking_call.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "version.h"

namespace samsa::tools {

namespace {

constexpr const char* k_client_id = "samsa-features";

struct features_options {
    client_options client;
    std::string op;  // describe, upgrade, downgrade, disable
    std::vector<std::string> features;
    std::string metadata;
    std::string release_version;
    bool unsafe = false;
    bool dry_run = false;
};

// FeatureUpdate.UpgradeType.
constexpr int8_t k_upgrade = 1;
constexpr int8_t k_safe_downgrade = 2;
constexpr int8_t k_unsafe_downgrade = 3;

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

std::string supported_metadata_versions() {
    std::string out;
    for (int16_t l = metadata::min_supported_metadata_version;
         l <= metadata::max_supported_metadata_version; ++l) {
        out += (out.empty() ? "" : ", ") + metadata::metadata_version_name(l);
    }
    return out;
}

// The updates the flags ask for, in order, or why they cannot be sent.
result<std::vector<std::pair<std::string, int16_t>>> updates_of(const features_options& o) {
    std::vector<std::pair<std::string, int16_t>> updates;
    const bool disable = o.op == "disable";
    if (!o.release_version.empty() && (!o.metadata.empty() || !o.features.empty())) {
        return error(error_code::invalid_request,
                     "Can not specify `release-version` with other feature flags.");
    }
    for (const std::string* v : {&o.release_version, &o.metadata}) {
        if (v->empty()) {
            continue;
        }
        if (v == &o.metadata) {
            std::printf(" `metadata` flag is deprecated and may be removed in a future release.\n");
        }
        auto level = metadata::metadata_version_level(*v);
        if (!level) {
            return error(error_code::invalid_request, "Unknown metadata.version " + *v +
                                                          ". Supported metadata.version are " +
                                                          supported_metadata_versions());
        }
        updates.emplace_back(metadata::metadata_version_feature, *level);
    }
    for (const auto& f : o.features) {
        if (disable) {
            updates.emplace_back(f, 0);
            continue;
        }
        const auto eq = f.find('=');
        if (eq == std::string::npos) {
            return error(error_code::invalid_request,
                         "Can't parse feature=level string " + f + ": equals sign not found.");
        }
        auto trim = [](std::string t) {
            t.erase(0, t.find_first_not_of(" \t"));
            t.erase(t.find_last_not_of(" \t") + 1);
            return t;
        };
        const std::string name = trim(f.substr(0, eq)), level = trim(f.substr(eq + 1));
        int value = 0;
        try {
            size_t used = 0;
            value = std::stoi(level, &used);
            if (used != level.size() || value < -32768 || value > 32767) {
                throw std::out_of_range(level);
            }
        } catch (const std::exception&) {
            return error(error_code::invalid_request, "Can't parse feature=level string " + f +
                                                          ": unable to parse " + level +
                                                          " as a short.");
        }
        updates.emplace_back(name, int16_t(value));
    }
    if (updates.empty()) {
        return error(error_code::invalid_request,
                     "You must specify at least one feature to " + o.op);
    }
    return updates;
}

int run_features_update(const features_options& o) {
    auto updates = updates_of(o);
    if (!updates) {
        return fail(updates.err());
    }
    auto to = bootstrap_target(o.client, k_client_id);
    if (!to) {
        return fail(to.err());
    }
    const int8_t type = o.op == "upgrade" ? k_upgrade
                        : o.unsafe        ? k_unsafe_downgrade
                                          : k_safe_downgrade;
    protocol::update_features_request req;
    req.validate_only = o.dry_run;
    for (const auto& [name, level] : *updates) {
        auto& u = req.feature_updates.emplace_back();
        u.feature = name;
        u.max_version_level = level;
        u.upgrade_type = type;
    }
    auto resp = net::call_blocking<protocol::update_features_response>(*to, req, 1);
    if (!resp) {
        return fail(resp.err());
    }
    // A top-level error fails every feature with its message, as Kafka's
    // admin client completes them; else each feature has its own result.
    std::map<std::string, std::optional<std::string>> failed;
    for (const auto& [name, level] : *updates) {
        if (resp->error_code != 0) {
            failed[name] = message_of(resp->error_code, resp->error_message);
        }
    }
    for (const auto& r : resp->results) {
        if (r.error_code != 0) {
            failed[r.feature] = message_of(r.error_code, r.error_message);
        }
    }
    std::map<std::string, int16_t> ordered(updates->begin(), updates->end());
    int failures = 0;
    for (const auto& [name, level] : ordered) {
        auto f = failed.find(name);
        if (f != failed.end()) {
            ++failures;
            std::printf("%s %s. %s\n", o.dry_run ? "Can not" : "Could not",
                        (o.op == "disable" ? "disable " + name
                                           : o.op + " " + name + " to " + std::to_string(level))
                            .c_str(),
                        f->second->c_str());
        } else {
            std::printf("%s%s%s\n", name.c_str(), o.dry_run ? " can be " : " was ",
                        (o.op == "disable" ? std::string("disabled.")
                                           : o.op + "d to " + std::to_string(level) + ".")
                            .c_str());
        }
    }
    if (failures > 0) {
        return fail(std::to_string(failures) + " out of " + std::to_string(ordered.size()) +
                    " operation(s) failed.");
    }
    return 0;
}

}  // namespace

tool_command add_features_command(CLI::App& app) {
    auto o = std::make_shared<features_options>();
    auto* cmd = add_verb(app, "features", "The cluster's feature flags (kafka-features.sh)");
    add_client_options(*cmd, o->client);
    cmd->add_subcommand("describe", "Describe the supported and finalized features")
        ->fallthrough()
        ->callback([o] { o->op = "describe"; });
    for (const char* op : {"upgrade", "downgrade", "disable"}) {
        const std::string name = op;
        auto* sub =
            cmd->add_subcommand(name, name == "upgrade"     ? "Upgrade one or more features"
                                      : name == "downgrade" ? "Downgrade one or more features"
                                                            : "Disable one or more features")
                ->fallthrough();
        sub->callback([o, name] { o->op = name; });
        sub->add_option("--feature", o->features,
                        name == "disable" ? "A feature to disable (repeatable)"
                                          : "A feature to change, as name=level (repeatable)");
        if (name != "disable") {
            sub->add_option("--metadata", o->metadata,
                            "The metadata.version to set, e.g. 3.6-IV2 (deprecated)");
            sub->add_option("--release-version", o->release_version,
                            "The release whose metadata.version to set, e.g. 3.6");
        }
        if (name != "upgrade") {
            sub->add_flag("--unsafe", o->unsafe, "Allow a downgrade that may lose metadata");
        }
        sub->add_flag("--dry-run", o->dry_run, "Check the change without making it");
    }
    cmd->require_subcommand(1);
    return {cmd, [o] {
                return o->op == "describe" ? run_features_describe(*o) : run_features_update(*o);
            }};
}

}  // namespace samsa::tools
