#pragma once
// The listener side of a broker's configuration, resolved and checked as Kafka's
// KafkaConfig does in KRaft mode: the effective listener.security.protocol.map
// (controller listener names map to PLAINTEXT when the map is not set and no TLS/SASL
// is in use), the listeners, what is advertised, the inter-broker listener, and the
// consistency of process.roles, listeners, controller.listener.names and
// controller.quorum.voters.
#include "common/config/broker_config.h"
#include "common/config/config_set.h"
#include "common/result.h"

namespace samsa::config {

// Fills listener_security_protocol_map, listeners, advertised_listeners and
// inter_broker_listener_name of `c` from `v`. Expects node_id, process_roles,
// controller_listener_names and controller_quorum_voters to be set already.
status resolve_broker_listeners(broker_config& c, const config_set& v);

}  // namespace samsa::config
