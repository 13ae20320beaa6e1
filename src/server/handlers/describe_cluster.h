#pragma once
// DescribeCluster (key 60, v0-1): the cluster id, the controller and the
// brokers reachable on the request's listener; v1 asks for an endpoint type,
// and a broker only answers for brokers (MISMATCHED_ENDPOINT_TYPE otherwise).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_cluster_handler();

}  // namespace samsa::server::handlers
