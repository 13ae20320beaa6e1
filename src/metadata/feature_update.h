#pragma once
// UpdateFeatures on the controller (KIP-584, KIP-778; Kafka's
// FeatureControlManager): finalizes feature levels as FeatureLevelRecords.
//
// Every update of a request is checked, in turn, and the first that fails
// fails them all (INVALID_UPDATE_VERSION, "The update failed for all features
// since the following feature had an error: ..."):
//
//   an upgrade type other than upgrade, safe or unsafe downgrade;
//   a level below 0;
//   a level this controller or any registered broker does not support
//     ("Local controller 1 only supports versions 7-14", "Broker 2 does not
//     support this feature.");
//   a lower level asked as an upgrade, or a higher one as a downgrade;
//   metadata.version: a downgrade across a level that changed the records
//     written ("might delete metadata information"; unsafe downgrades are
//     not supported, as in Kafka);
//   any other feature: one Kafka does not know ("Feature x not found.").
//
// Samsa knows one feature, metadata.version, levels 3.3-IV3 to 3.6-IV2; a
// cluster is formatted at the highest, so upgrades to it are accepted (a
// record at the same level) and every downgrade is refused, as Kafka refuses
// them from that level. validate_only answers the same and writes nothing.
#include "metadata/controller_plan.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"

namespace samsa::metadata {

// `local_node` names this controller in messages. The request is in its
// latest form (upgrade_type set; a v0 allow_downgrade is a safe downgrade).
controller_plan<protocol::update_features_response> plan_update_features(
    const controller_state& state, const protocol::update_features_request& request,
    int32_t local_node);

}  // namespace samsa::metadata
