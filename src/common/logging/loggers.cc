#include "common/logging/loggers.h"

#include <fmt/format.h>
#include <spdlog/sinks/dist_sink.h>

#include <map>
#include <memory>
#include <mutex>

#include "common/logging/log_output.h"

namespace samsa::logging {

namespace {

constexpr std::string_view k_server = "kafka.server";
constexpr std::string_view k_network = "kafka.network";
constexpr std::string_view k_requests = "kafka.request.logger";
constexpr std::string_view k_storage = "kafka.log";
constexpr std::string_view k_cleaner = "kafka.log.LogCleaner";
constexpr std::string_view k_state_change = "state.change.logger";
constexpr std::string_view k_replication = "kafka.server.ReplicaManager";
constexpr std::string_view k_groups = "kafka.coordinator.group";
constexpr std::string_view k_transactions = "kafka.coordinator.transaction";
constexpr std::string_view k_raft = "org.apache.kafka.raft";
constexpr std::string_view k_controller = "org.apache.kafka.controller";
constexpr std::string_view k_metadata = "kafka.server.metadata";
constexpr std::string_view k_security = "kafka.authorizer.logger";
constexpr std::string_view k_metrics = "kafka.metrics";

constexpr std::string_view k_catalogue[] = {
    k_server, k_network,      k_requests, k_storage,    k_cleaner,  k_state_change, k_replication,
    k_groups, k_transactions, k_raft,     k_controller, k_metadata, k_security,     k_metrics,
};

constexpr auto k_default_level = spdlog::level::info;

struct registry {
    std::mutex mu;
    std::map<std::string, std::shared_ptr<spdlog::logger>, std::less<>> loggers;
    // The levels set explicitly; the root's is always here.
    std::map<std::string, spdlog::level::level_enum, std::less<>> own;

    registry() {
        auto sink = output_sink();
        for (std::string_view n : k_catalogue) {
            add(std::string(n), sink);
        }
        add(std::string(root_name), sink);
        own[std::string(root_name)] = k_default_level;
        // spdlog::info() and friends, wherever they remain, log as root.
        spdlog::set_default_logger(loggers.at(std::string(root_name)));
    }

    void add(std::string name, const spdlog::sink_ptr& sink) {
        auto l = std::make_shared<spdlog::logger>(name, sink);
        l->set_level(k_default_level);
        // Every line reaches the file at once: a killed broker's last
        // lines are the ones that explain it.
        l->flush_on(spdlog::level::trace);
        loggers.emplace(std::move(name), std::move(l));
    }

    spdlog::level::level_enum root_level() const { return own.at(std::string(root_name)); }

    // Gives every logger its effective level. Under `mu`.
    void apply() {
        const auto fallback = root_level();
        for (auto& [name, l] : loggers) {
            auto it = own.find(name);
            l->set_level(it == own.end() ? fallback : it->second);
        }
    }
};

registry& reg() {
    // Never destroyed: threads may still log while statics are torn down.
    static registry* r = new registry();
    return *r;
}

spdlog::logger& named(std::string_view name) {
    auto& r = reg();
    std::lock_guard lock(r.mu);
    return *r.loggers.find(name)->second;
}

}  // namespace

#define SAMSA_LOGGER(fn, key)                  \
    spdlog::logger& fn() {                     \
        static spdlog::logger& l = named(key); \
        return l;                              \
    }
SAMSA_LOGGER(root, root_name)
SAMSA_LOGGER(server, k_server)
SAMSA_LOGGER(network, k_network)
SAMSA_LOGGER(requests, k_requests)
SAMSA_LOGGER(storage, k_storage)
SAMSA_LOGGER(cleaner, k_cleaner)
SAMSA_LOGGER(state_change, k_state_change)
SAMSA_LOGGER(replication, k_replication)
SAMSA_LOGGER(groups, k_groups)
SAMSA_LOGGER(transactions, k_transactions)
SAMSA_LOGGER(raft, k_raft)
SAMSA_LOGGER(controller, k_controller)
SAMSA_LOGGER(metadata, k_metadata)
SAMSA_LOGGER(security, k_security)
SAMSA_LOGGER(metrics, k_metrics)
#undef SAMSA_LOGGER

const std::vector<std::string>& valid_levels() {
    static const std::vector<std::string> v{"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"};
    return v;
}

std::optional<spdlog::level::level_enum> parse_level(std::string_view name) {
    using spdlog::level::level_enum;
    static const std::pair<std::string_view, level_enum> table[] = {
        {"FATAL", level_enum::critical}, {"ERROR", level_enum::err},   {"WARN", level_enum::warn},
        {"INFO", level_enum::info},      {"DEBUG", level_enum::debug}, {"TRACE", level_enum::trace},
    };
    for (auto [n, l] : table) {
        if (n == name) {
            return l;
        }
    }
    return std::nullopt;
}

std::string level_name(spdlog::level::level_enum level) {
    switch (level) {
        case spdlog::level::trace:
            return "TRACE";
        case spdlog::level::debug:
            return "DEBUG";
        case spdlog::level::info:
            return "INFO";
        case spdlog::level::warn:
            return "WARN";
        case spdlog::level::err:
            return "ERROR";
        case spdlog::level::critical:
            return "FATAL";
        default:
            return "OFF";
    }
}

std::vector<logger_level> levels() {
    auto& r = reg();
    std::lock_guard lock(r.mu);
    std::vector<logger_level> out;
    out.push_back({std::string(root_name), level_name(r.root_level())});
    for (const auto& [name, l] : r.loggers) {
        if (name != root_name) {
            out.push_back({name, level_name(l->level())});
        }
    }
    return out;
}

bool exists(std::string_view name) {
    auto& r = reg();
    std::lock_guard lock(r.mu);
    return r.loggers.find(name) != r.loggers.end();
}

status set_level(std::string_view name, std::string_view level) {
    auto& r = reg();
    std::lock_guard lock(r.mu);
    if (r.loggers.find(name) == r.loggers.end()) {
        return error(error_code::invalid_config, fmt::format("Logger {} does not exist!", name));
    }
    auto parsed = parse_level(level);
    if (!parsed) {
        return error(error_code::invalid_config,
                     fmt::format("Cannot set the log level of {} to {} as it is not a supported "
                                 "log level. Valid log levels are {}",
                                 name, level, fmt::join(valid_levels(), ", ")));
    }
    r.own[std::string(name)] = *parsed;
    r.apply();
    return {};
}

status unset_level(std::string_view name) {
    auto& r = reg();
    std::lock_guard lock(r.mu);
    if (r.loggers.find(name) == r.loggers.end()) {
        return error(error_code::invalid_config, fmt::format("Logger {} does not exist!", name));
    }
    if (name == root_name) {
        return error(
            error_code::invalid_request,
            fmt::format("Removing the log level of the {} logger is not allowed", root_name));
    }
    if (auto it = r.own.find(name); it != r.own.end()) {
        r.own.erase(it);
    }
    r.apply();
    return {};
}

result<std::vector<std::pair<std::string, std::string>>> parse_level_overrides(
    std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    size_t i = 0;
    while (i <= text.size() && !text.empty()) {
        size_t end = text.find(',', i);
        end = end == std::string_view::npos ? text.size() : end;
        std::string_view item = text.substr(i, end - i);
        while (!item.empty() && item.front() == ' ') {
            item.remove_prefix(1);
        }
        while (!item.empty() && item.back() == ' ') {
            item.remove_suffix(1);
        }
        const size_t colon = item.rfind(':');
        if (colon == std::string_view::npos || colon == 0 || colon + 1 == item.size()) {
            return error(error_code::invalid_config,
                         fmt::format("expected logger:LEVEL, got \"{}\"", item));
        }
        std::string name(item.substr(0, colon));
        std::string level(item.substr(colon + 1));
        if (!exists(name)) {
            return error(error_code::invalid_config,
                         fmt::format("Logger {} does not exist!", name));
        }
        if (!parse_level(level)) {
            return error(error_code::invalid_config,
                         fmt::format("{} is not a log level; valid log levels are {}", level,
                                     fmt::join(valid_levels(), ", ")));
        }
        out.emplace_back(std::move(name), std::move(level));
        i = end + 1;
    }
    return out;
}

void reset_levels() {
    auto& r = reg();
    std::lock_guard lock(r.mu);
    r.own.clear();
    r.own[std::string(root_name)] = k_default_level;
    r.apply();
}

}  // namespace samsa::logging
