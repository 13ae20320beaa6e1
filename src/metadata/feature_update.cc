#include "metadata/feature_update.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "common/error.h"
#include "metadata/metadata_version.h"

namespace samsa::metadata {

namespace {

// FeatureUpdate.UpgradeType.
constexpr int8_t upgrade = 1;
constexpr int8_t safe_downgrade = 2;
constexpr int8_t unsafe_downgrade = 3;

struct range {
    int16_t min = 0;
    int16_t max = 0;  // 0..0: the feature is not supported (Kafka's DISABLED)
    bool contains(int16_t v) const { return v >= min && v <= max; }
    std::string text() const {
        return min == max ? std::to_string(min) : fmt::format("{}-{}", min, max);
    }
};

range local_range(const std::string& feature) {
    if (feature == metadata_version_feature) {
        return {min_supported_metadata_version, max_supported_metadata_version};
    }
    return {};
}

// QuorumFeatures.reasonNotSupported.
std::optional<std::string> not_supported(int16_t level, const std::string& who, range r) {
    if (r.contains(level)) {
        return std::nullopt;
    }
    if (r.max == 0) {
        return who + " does not support this feature.";
    }
    return who + " only supports versions " + r.text();
}

std::string invalid_update(const std::string& feature, int16_t level, const std::string& why) {
    return fmt::format("Invalid update version {} for feature {}. {}", level, feature, why);
}

std::string invalid_metadata_version(int16_t level, const std::string& why) {
    return fmt::format("Invalid metadata.version {}. {}", level, why);
}

// One update: the records it writes, or why it fails.
std::optional<std::string> plan_one(const controller_state& state, int32_t local_node,
                                    const protocol::update_features_request::feature_update_key& u,
                                    std::vector<metadata_record>& records) {
    const std::string& name = u.feature;
    const int16_t level = u.max_version_level;
    if (u.upgrade_type != upgrade && u.upgrade_type != safe_downgrade &&
        u.upgrade_type != unsafe_downgrade) {
        return invalid_update(name, level,
                              "The controller does not support the given upgrade type.");
    }
    auto current_it = state.image.features.find(name);
    const int16_t current = current_it == state.image.features.end() ? 0 : current_it->second;
    if (level < 0) {
        return invalid_update(name, level, "A feature version cannot be less than 0.");
    }
    if (auto why = not_supported(level, fmt::format("Local controller {}", local_node),
                                 local_range(name))) {
        return invalid_update(name, level, *why);
    }
    for (const auto& [id, broker] : state.image.brokers) {
        auto f = broker.supported_features.find(name);
        const range r = f == broker.supported_features.end()
                            ? range{}
                            : range{f->second.first, f->second.second};
        if (auto why = not_supported(level, fmt::format("Broker {}", id), r)) {
            return invalid_update(name, level, *why);
        }
    }
    if (level < current && u.upgrade_type == upgrade) {
        return invalid_update(name, level,
                              "Can't downgrade the version of this feature without setting the "
                              "upgrade type to either safe or unsafe downgrade.");
    }
    if (level > current && u.upgrade_type != upgrade) {
        return invalid_update(name, level, "Can't downgrade to a newer version.");
    }
    if (name != metadata_version_feature) {
        // Kafka's Features.featureFromName: a feature it does not define.
        return invalid_update(name, level, "Feature " + name + " not found.");
    }
    if (level < current && metadata_changed_between(current, level)) {
        return invalid_metadata_version(
            level, u.upgrade_type == unsafe_downgrade
                       ? "Unsafe metadata downgrade is not supported in this version."
                       : "Refusing to perform the requested downgrade because it might delete "
                         "metadata information.");
    }
    protocol::feature_level_record r;
    r.name = name;
    r.feature_level = level;
    records.emplace_back(std::move(r));
    return std::nullopt;
}

}  // namespace

controller_plan<protocol::update_features_response> plan_update_features(
    const controller_state& state, const protocol::update_features_request& request,
    int32_t local_node) {
    controller_plan<protocol::update_features_response> plan;
    auto& resp = plan.response;
    std::vector<metadata_record> records;
    // As Kafka's map of updates: a feature named twice counts once, the last.
    std::map<std::string, const protocol::update_features_request::feature_update_key*> updates;
    for (const auto& u : request.feature_updates) {
        updates[u.feature] = &u;
    }
    for (const auto& [name, u] : updates) {
        if (auto why = plan_one(state, local_node, *u, records)) {
            resp.error_code = to_wire(error_code::invalid_update_version);
            resp.error_message =
                "The update failed for all features since the following feature had an error: " +
                *why;
            return plan;
        }
    }
    resp.error_code = 0;
    resp.error_message = std::nullopt;
    for (const auto& u : request.feature_updates) {
        auto& r = resp.results.emplace_back();
        r.feature = u.feature;
        r.error_code = 0;
        r.error_message = "NONE";  // Kafka's Errors.NONE.message()
    }
    if (!request.validate_only) {
        plan.records = std::move(records);
    }
    return plan;
}

}  // namespace samsa::metadata
