#pragma once
// DescribeLogDirs (key 35): each log dir of this broker with the partitions it
// holds, their sizes, and the dir's total and usable bytes (v4+).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_log_dirs_handler();

}  // namespace samsa::server::handlers
