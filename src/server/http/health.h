#pragma once
// The health checks of the HTTP listener, for orchestrators' probes:
//   /v1/health/live   200 while the process serves HTTP at all;
//   /v1/health/ready  200 once this node does its job: a broker registered
//                     and unfenced (caught up with the metadata log, KIP-631),
//                     a controller that knows the quorum's leader; else 503.
// Both answer a small JSON object saying why.
#include "server/http/broker_metrics.h"
#include "server/http/http_listener.h"

namespace samsa::server::http {

http_response live_check();
http_response ready_check(const observed_node& node);

}  // namespace samsa::server::http
