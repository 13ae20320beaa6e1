// UpdateFeatures (key 57) against the in-process broker, which is also its
// controller: the first failing update fails the whole request with Kafka's
// top-level message and writes nothing; v0's allow_downgrade is read as the
// upgrade type; v1 lists each feature's result, v2 only the top-level error;
// validate_only answers without changing the finalized level.
#include <gtest/gtest.h>

#include <string>

#include "broker_fixture.h"
#include "metadata/metadata_version.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"

namespace samsa::server::test {
namespace {

using protocol::update_features_request;
using protocol::update_features_response;

constexpr const char* k_failed =
    "The update failed for all features since the following feature had an error: ";

class update_features_test : public broker_test {
  protected:
    update_features_response update(const std::string& feature, int16_t level, int16_t version,
                                    int8_t upgrade_type = 1, bool validate_only = false,
                                    bool allow_downgrade = false) {
        update_features_request req;
        req.timeout_ms = 30000;
        req.validate_only = validate_only;
        auto& u = req.feature_updates.emplace_back();
        u.feature = feature;
        u.max_version_level = level;
        u.upgrade_type = upgrade_type;
        u.allow_downgrade = allow_downgrade;
        return broker().call<update_features_response>(req, version);
    }
};

TEST_F(update_features_test, a_feature_the_controller_does_not_know_fails_the_request) {
    for (int16_t v : {1, 2}) {
        SCOPED_TRACE(v);
        auto resp = update("no.such.feature", 1, v);
        EXPECT_ERROR(resp.error_code, error_code::invalid_update_version);
        EXPECT_EQ(resp.error_message.value_or(""),
                  std::string(k_failed) +
                      "Invalid update version 1 for feature no.such.feature. Local controller " +
                      std::to_string(broker().node_id()) + " does not support this feature.");
        EXPECT_TRUE(resp.results.empty());
    }
}

TEST_F(update_features_test, an_unknown_upgrade_type_is_refused) {
    auto resp = update(metadata::metadata_version_feature, metadata::max_supported_metadata_version,
                       1, /*upgrade_type=*/7);
    EXPECT_ERROR(resp.error_code, error_code::invalid_update_version);
    EXPECT_NE(resp.error_message.value_or("").find(
                  "The controller does not support the given upgrade type."),
              std::string::npos)
        << resp.error_message.value_or("");
}

TEST_F(update_features_test, v0_without_allow_downgrade_is_an_upgrade_and_refuses_a_lower_level) {
    const int16_t lower = metadata::max_supported_metadata_version - 1;
    auto resp = update(metadata::metadata_version_feature, lower, 0, /*upgrade_type=*/1, false,
                       /*allow_downgrade=*/false);
    EXPECT_ERROR(resp.error_code, error_code::invalid_update_version);
    EXPECT_EQ(resp.error_message.value_or(""),
              std::string(k_failed) + "Invalid update version " + std::to_string(lower) +
                  " for feature metadata.version. Can't downgrade the version of this feature "
                  "without setting the upgrade type to either safe or unsafe downgrade.");
}

TEST_F(update_features_test, v0_allow_downgrade_is_a_safe_downgrade_refused_when_metadata_changed) {
    const int16_t lowest = metadata::min_supported_metadata_version;
    auto resp = update(metadata::metadata_version_feature, lowest, 0, /*upgrade_type=*/1, false,
                       /*allow_downgrade=*/true);
    EXPECT_ERROR(resp.error_code, error_code::invalid_update_version);
    EXPECT_EQ(resp.error_message.value_or(""),
              std::string(k_failed) + "Invalid metadata.version " + std::to_string(lowest) +
                  ". Refusing to perform the requested downgrade because it might delete "
                  "metadata information.");
}

TEST_F(update_features_test, validate_only_lists_results_in_v1_and_only_the_error_in_v2) {
    const int16_t level = metadata::max_supported_metadata_version;
    auto v1 = update(metadata::metadata_version_feature, level, 1, 1, /*validate_only=*/true);
    EXPECT_ERROR(v1.error_code, error_code::none);
    ASSERT_EQ(v1.results.size(), 1u);
    EXPECT_EQ(v1.results[0].feature, metadata::metadata_version_feature);
    EXPECT_ERROR(v1.results[0].error_code, error_code::none);
    auto v2 = update(metadata::metadata_version_feature, level, 2, 1, /*validate_only=*/true);
    EXPECT_ERROR(v2.error_code, error_code::none);
    EXPECT_TRUE(v2.results.empty());
}

}  // namespace
}  // namespace samsa::server::test
