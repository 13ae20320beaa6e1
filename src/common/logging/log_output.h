#pragma once
// Where the broker's log lines go and how they look (docs/logging.md): always
// standard output, and a file with size-based rotation when `log.file.path`
// is set; as text (Kafka's layout, "[time] level message (logger)") or as
// JSON lines (`log.format=json`) with the message's key=value pairs as
// fields, for log shippers.
#include <spdlog/common.h>

#include <cstdint>
#include <string>

#include "common/result.h"

namespace samsa::logging {

struct output_settings {
    bool json = false;
    std::string file_path;  // empty: standard output only
    uint64_t file_max_bytes = 100 * 1024 * 1024;
    int file_max_backups = 10;
};

// The one sink every logger writes to; its targets change with configure().
spdlog::sink_ptr output_sink();

// Replaces the targets. An error (a file that cannot be opened) leaves the
// previous ones in place.
status configure_output(const output_settings& settings);

}  // namespace samsa::logging
