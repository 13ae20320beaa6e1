#pragma once
// DescribeCluster (key 60, v0-1): the cluster id, the controller and the
// nodes reachable on the request's listener. v1 asks for an endpoint type
// (KIP-919): the client listener answers for brokers and the controller
// listener for controllers, MISMATCHED_ENDPOINT_TYPE for the other one.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_cluster_handler();

}  // namespace samsa::server::handlers
