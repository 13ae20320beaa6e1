// UpdateFeatures on the controller (metadata/feature_update.h): Kafka's
// FeatureControlManager checks and messages, each registered broker's range,
// metadata.version downgrades, validate_only.
#include "metadata/feature_update.h"

#include <gtest/gtest.h>

#include <random>

#include "common/config/broker_config_def.h"
#include "metadata/metadata_version.h"
#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

constexpr int8_t upgrade = 1, safe_downgrade = 2, unsafe_downgrade = 3;

struct features : ::testing::Test {
    config::broker_config cfg = testing::one_node_config();
    config::config_set broker{config::broker_config_def()};
    std::mt19937 rng;
    metadata_image img;

    features() {
        img.features[metadata_version_feature] = 14;
        auto& b = img.brokers[node_id{2}];
        b.id = node_id{2};
        b.supported_features[metadata_version_feature] = {7, 14};
    }

    controller_plan<protocol::update_features_response> plan(std::string name, int16_t level,
                                                             int8_t type, bool validate = false) {
        protocol::update_features_request r;
        auto& u = r.feature_updates.emplace_back();
        u.feature = std::move(name);
        u.max_version_level = level;
        u.upgrade_type = type;
        r.validate_only = validate;
        return plan_update_features(controller_state{img, cfg, broker, rng}, r, 1);
    }

    std::string refusal(std::string name, int16_t level, int8_t type) {
        auto p = plan(std::move(name), level, type);
        EXPECT_TRUE(p.records.empty());
        EXPECT_TRUE(p.response.results.empty());
        EXPECT_EQ(p.response.error_code, 95);  // INVALID_UPDATE_VERSION
        const std::string prefix =
            "The update failed for all features since the following feature had an error: ";
        const std::string m = p.response.error_message.value_or("");
        EXPECT_EQ(m.rfind(prefix, 0), 0u) << m;
        return m.substr(std::min(m.size(), prefix.size()));
    }
};

TEST_F(features, the_current_metadata_version_is_written_again) {
    auto p = plan(metadata_version_feature, 14, upgrade);
    EXPECT_EQ(p.response.error_code, 0);
    ASSERT_EQ(p.response.results.size(), 1u);
    EXPECT_EQ(p.response.results[0].feature, "metadata.version");
    EXPECT_EQ(p.response.results[0].error_message, "NONE");
    ASSERT_EQ(p.records.size(), 1u);
    const auto* f = std::get_if<protocol::feature_level_record>(&p.records[0]);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->feature_level, 14);
    // validate_only: the same answer, no record.
    auto v = plan(metadata_version_feature, 14, upgrade, true);
    EXPECT_EQ(v.response.error_code, 0);
    EXPECT_TRUE(v.records.empty());
}

TEST_F(features, levels_outside_a_controller_or_brokers_range_are_refused) {
    EXPECT_EQ(refusal(metadata_version_feature, 15, upgrade),
              "Invalid update version 15 for feature metadata.version. Local controller 1 only "
              "supports versions 7-14");
    EXPECT_EQ(refusal(metadata_version_feature, -1, upgrade),
              "Invalid update version -1 for feature metadata.version. A feature version cannot "
              "be less than 0.");
    img.brokers[node_id{2}].supported_features[metadata_version_feature] = {7, 12};
    img.features[metadata_version_feature] = 12;
    EXPECT_EQ(refusal(metadata_version_feature, 13, upgrade),
              "Invalid update version 13 for feature metadata.version. Broker 2 only supports "
              "versions 7-12");
    img.brokers[node_id{2}].supported_features.clear();
    EXPECT_EQ(refusal(metadata_version_feature, 13, upgrade),
              "Invalid update version 13 for feature metadata.version. Broker 2 does not "
              "support this feature.");
}

TEST_F(features, metadata_version_downgrades_follow_kafkas_rules) {
    EXPECT_EQ(refusal(metadata_version_feature, 13, upgrade),
              "Invalid update version 13 for feature metadata.version. Can't downgrade the "
              "version of this feature without setting the upgrade type to either safe or "
              "unsafe downgrade.");
    EXPECT_EQ(refusal(metadata_version_feature, 13, safe_downgrade),
              "Invalid metadata.version 13. Refusing to perform the requested downgrade because "
              "it might delete metadata information.");
    EXPECT_EQ(refusal(metadata_version_feature, 7, unsafe_downgrade),
              "Invalid metadata.version 7. Unsafe metadata downgrade is not supported in this "
              "version.");
    // 3.5-IV1 to 3.5-IV0 changed no records: that downgrade goes through.
    img.features[metadata_version_feature] = 10;
    EXPECT_EQ(plan(metadata_version_feature, 9, safe_downgrade).response.error_code, 0);
    img.features[metadata_version_feature] = 9;
    EXPECT_EQ(refusal(metadata_version_feature, 10, safe_downgrade),
              "Invalid update version 10 for feature metadata.version. Can't downgrade to a "
              "newer version.");
    EXPECT_EQ(refusal(metadata_version_feature, 9, 7),
              "Invalid update version 9 for feature metadata.version. The controller does not "
              "support the given upgrade type.");
}

TEST_F(features, a_feature_samsa_does_not_know_cannot_be_set) {
    EXPECT_EQ(refusal("group.version", 1, upgrade),
              "Invalid update version 1 for feature group.version. Local controller 1 does not "
              "support this feature.");
    EXPECT_EQ(refusal("group.version", 0, safe_downgrade),
              "Invalid update version 0 for feature group.version. Feature group.version not "
              "found.");
}

TEST(metadata_version, names_and_changes_as_kafka) {
    EXPECT_EQ(metadata_version_level("3.6"), 14);
    EXPECT_EQ(metadata_version_level("3.6.1"), 14);
    EXPECT_EQ(metadata_version_level("3.5-IV0"), 9);
    EXPECT_EQ(metadata_version_level("3.3"), 7);
    EXPECT_EQ(metadata_version_level("3.2"), std::nullopt);  // below what we support
    EXPECT_EQ(metadata_version_level("4.0"), std::nullopt);
    EXPECT_TRUE(metadata_changed_between(14, 13));
    EXPECT_FALSE(metadata_changed_between(10, 9));
    EXPECT_TRUE(metadata_changed_between(11, 9));
    EXPECT_FALSE(metadata_changed_between(12, 11));
    EXPECT_FALSE(metadata_changed_between(7, 7));
}

}  // namespace
}  // namespace samsa::metadata
