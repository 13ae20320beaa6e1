#include "common/logging/log_output.h"

#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <memory>

#include "common/logging/json_formatter.h"

namespace samsa::logging {

namespace {

// Kafka's layout, "[2026-12-03 11:59:00,123] INFO message (logger)", with
// spdlog's level names (the tests and tools that read the text know them).
constexpr const char* k_text_pattern = "[%Y-%m-%d %H:%M:%S.%e] %^%l%$ %v (%n)";

std::unique_ptr<spdlog::formatter> formatter_for(bool json) {
    if (json) {
        return std::make_unique<json_formatter>();
    }
    return std::make_unique<spdlog::pattern_formatter>(k_text_pattern);
}

std::shared_ptr<spdlog::sinks::dist_sink_mt>& dist() {
    static auto* sink = [] {
        auto d = std::make_shared<spdlog::sinks::dist_sink_mt>();
        auto out = std::make_shared<spdlog::sinks::stdout_color_sink_mt>();
        out->set_formatter(formatter_for(false));
        d->add_sink(out);
        return new std::shared_ptr<spdlog::sinks::dist_sink_mt>(std::move(d));
    }();
    return *sink;
}

}  // namespace

spdlog::sink_ptr output_sink() {
    return dist();
}

status configure_output(const output_settings& s) {
    std::vector<spdlog::sink_ptr> sinks;
    sinks.push_back(std::make_shared<spdlog::sinks::stdout_color_sink_mt>());
    if (!s.file_path.empty()) {
        try {
            sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
                s.file_path, s.file_max_bytes, static_cast<size_t>(s.file_max_backups)));
        } catch (const spdlog::spdlog_ex& e) {
            return error(error_code::invalid_config,
                         fmt::format("log.file.path {}: {}", s.file_path, e.what()));
        }
    }
    for (auto& sink : sinks) {
        sink->set_formatter(formatter_for(s.json));
    }
    dist()->set_sinks(std::move(sinks));
    return {};
}

}  // namespace samsa::logging
