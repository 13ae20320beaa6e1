#pragma once
// AlterConfigs and IncrementalAlterConfigs on the controller (Kafka's
// ConfigurationControlManager with ControllerConfigurationValidator's checks):
// each resource's new dynamic configs become ConfigRecords (a null value
// deletes a key), recorded only for the keys that change.
//
// Resources:
//   TOPIC   "<topic>"      the topic's overrides; the topic must exist
//                          (UNKNOWN_TOPIC_OR_PARTITION), "" is INVALID_REQUEST
//   BROKER  "<node id>"    per-broker dynamic configs
//   BROKER  ""             the cluster-wide dynamic defaults
// Anything else, a broker name that is not a non-negative integer, or a
// resource given twice, is INVALID_REQUEST.
//
// AlterConfigs replaces the resource's whole set; IncrementalAlterConfigs
// applies SET / DELETE / APPEND / SUBTRACT per key (APPEND and SUBTRACT only on
// LIST keys, starting from the key's default when it is not set). The result
// is validated as a whole: unknown keys, invalid values, read-only broker keys
// and per-broker keys as cluster defaults are INVALID_CONFIG with the reason.
// validate_only records nothing.
#include "metadata/controller_plan.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"

namespace samsa::metadata {

// Kafka's AlterConfigOp.OpType ids.
enum class alter_config_op : int8_t { set = 0, del = 1, append = 2, subtract = 3 };

controller_plan<protocol::incremental_alter_configs_response> plan_incremental_alter_configs(
    const controller_state& state, const protocol::incremental_alter_configs_request& request);

controller_plan<protocol::alter_configs_response> plan_alter_configs(
    const controller_state& state, const protocol::alter_configs_request& request);

}  // namespace samsa::metadata
