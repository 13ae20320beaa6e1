#pragma once
// One JSON object per log line (`log.format=json`):
//   {"time":"2026-12-03T11:59:00.123Z","level":"INFO","logger":"kafka.log",
//    "thread":1234,"message":"event=log_recovered partition=t-0",
//    "event":"log_recovered","partition":"t-0"}
// The message's key=value pairs (values optionally "quoted") also appear as
// fields of their own, after the fixed ones and never replacing them.
#include <spdlog/formatter.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace samsa::logging {

// The key=value pairs of a message, or none when any word is not one.
std::vector<std::pair<std::string, std::string>> message_fields(std::string_view message);

class json_formatter final : public spdlog::formatter {
  public:
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
    std::unique_ptr<spdlog::formatter> clone() const override;
};

}  // namespace samsa::logging
