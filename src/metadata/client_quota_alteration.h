#pragma once
// AlterClientQuotas on the controller (KIP-546, Kafka's
// ClientQuotaControlManager): each entry's ops become ClientQuotaRecords, a
// set for a new or changed value and a removal for a key the entity holds.
// An entry fails as a whole, with INVALID_REQUEST and Kafka's message, when
//
//   its entity names no type, a type twice, or one other than user,
//   client-id and ip; or an empty name             (the entity)
//   ip is combined with user or client-id           (the combination)
//   an op names a key twice, or the entity twice    (duplicates)
//   a key is not one of the entity's quota keys, or a byte rate is not a
//   whole number, or a value is not positive        (the values)
//
// and, since a key this broker accepts must act as in Kafka, when it sets a
// quota that Samsa does not enforce yet (connection_creation_rate, KIP-612):
// the message says so.
// validate_only answers as the change would and writes nothing.
#include "metadata/controller_plan.h"
#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"

namespace samsa::metadata {

controller_plan<protocol::alter_client_quotas_response> plan_alter_client_quotas(
    const controller_state& state, const protocol::alter_client_quotas_request& request);

}  // namespace samsa::metadata
