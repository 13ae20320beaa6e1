#pragma once
// DeleteRecords (key 21): moves each partition's log start offset up (the low
// watermark); whole segments below it are deleted.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler delete_records_handler();

}  // namespace samsa::server::handlers
