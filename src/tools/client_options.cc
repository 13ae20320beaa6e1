#include "tools/client_options.h"

#include "common/config/properties.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace samsa::tools {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

}  // namespace

void add_client_options(CLI::App& app, client_options& opts) {
    app.add_option("--bootstrap-server", opts.bootstrap_server,
                   "Broker(s) to connect to, host:port[,host:port...]")
        ->capture_default_str();
    app.add_option("--command-config", opts.command_config,
                   "Properties file of client settings (e.g. security.protocol, sasl.*)")
        ->check(CLI::ExistingFile);
    app.add_option_function<std::string>(
           "--timeout", [&opts](const std::string& text) { opts.timeout = *parse_duration(text); },
           "Longest wait for any one step (connect, request, flush): 30s, 500ms, 2m")
        ->default_str("30s")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                auto d = parse_duration(text);
                // librdkafka bounds its own request timeouts to an hour.
                if (!d || d->count() <= 0 || *d > std::chrono::hours(1)) {
                    return "not a duration between 1ms and 1h (e.g. 30s, 500ms, 2m): " + text;
                }
                return {};
            },
            "DURATION"));
    app.add_flag("--client-debug", opts.verbose, "Print the client library's log lines to stderr");
}

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
    text = trim(text);
    if (text.empty()) {
        return std::nullopt;
    }
    std::string s(text);
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || errno != 0 || !std::isfinite(value) || value < 0) {
        return std::nullopt;
    }
    std::string_view unit = trim(std::string_view(end));
    double ms_per_unit = 0;
    if (unit.empty() || unit == "s") {
        ms_per_unit = 1000;
    } else if (unit == "ms") {
        ms_per_unit = 1;
    } else if (unit == "m" || unit == "min") {
        ms_per_unit = 60'000;
    } else if (unit == "h") {
        ms_per_unit = 3'600'000;
    } else {
        return std::nullopt;
    }
    double ms = value * ms_per_unit;
    if (ms > 1e12) {
        return std::nullopt;
    }
    return std::chrono::milliseconds(static_cast<int64_t>(std::llround(ms)));
}

std::string format_duration(std::chrono::milliseconds d) {
    auto ms = d.count();
    if (ms % 1000 == 0) {
        return std::to_string(ms / 1000) + "s";
    }
    if (ms > 1000) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3gs", double(ms) / 1000.0);
        return buf;
    }
    return std::to_string(ms) + "ms";
}

result<std::pair<std::string, std::string>> parse_key_value(std::string_view text) {
    auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
        return tool_error("expected key=value, got '" + std::string(text) + "'");
    }
    return std::pair{std::string(trim(text.substr(0, eq))), std::string(text.substr(eq + 1))};
}

result<property_list> parse_key_values(const std::vector<std::string>& texts) {
    property_list out;
    for (const auto& t : texts) {
        auto kv = parse_key_value(t);
        if (!kv) {
            return kv.err();
        }
        out.push_back(std::move(*kv));
    }
    return out;
}

result<property_list> load_properties_file(const std::string& path) {
    auto props = config::load_properties_file(path);
    if (!props) {
        return tool_error(props.err().message);
    }
    property_list out;
    for (const auto& p : props->entries()) {
        // Java clients trim a value as they parse it (ConfigDef.parseType).
        out.emplace_back(p.key, std::string(trim(p.value)));
    }
    return out;
}

result<std::pair<std::string, uint16_t>> first_bootstrap(const client_options& opts) {
    const std::string& bs = opts.bootstrap_server;
    const std::string first = bs.substr(0, bs.find(','));
    const auto colon = first.rfind(':');
    int port = 0;
    if (colon != std::string::npos) {
        auto digits = std::string_view(first).substr(colon + 1);
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
        if (ec != std::errc() || end != digits.data() + digits.size()) {
            port = 0;
        }
    }
    if (colon == std::string::npos || colon == 0 || port <= 0 || port > 65535) {
        return tool_error("--bootstrap-server: expected host:port, got '" + first + "'");
    }
    return std::pair(first.substr(0, colon), uint16_t(port));
}

result<net::blocking_target> target_at(const client_options& opts, std::string host, int32_t port,
                                       std::string client_id) {
    auto security = client_security_of(opts);
    if (!security) {
        return security.err();
    }
    return net::blocking_target{std::move(host), uint16_t(port), std::move(client_id), opts.timeout,
                                std::move(*security)};
}

result<net::blocking_target> bootstrap_target(const client_options& opts, std::string client_id) {
    auto to = first_bootstrap(opts);
    if (!to) {
        return to.err();
    }
    auto security = client_security_of(opts);
    if (!security) {
        return security.err();
    }
    return net::blocking_target{to->first, to->second, std::move(client_id), opts.timeout,
                                std::move(*security)};
}

result<std::map<int32_t, net::blocking_target>> broker_targets(const client_options& opts,
                                                               const std::string& client_id) {
    auto boot = bootstrap_target(opts, client_id);
    if (!boot) {
        return boot.err();
    }
    protocol::metadata_request req;
    req.topics.emplace();  // no topics: only the brokers
    req.allow_auto_topic_creation = false;
    auto md = net::call_blocking<protocol::metadata_response>(*boot, req, 9);
    if (!md) {
        return md.err();
    }
    std::map<int32_t, net::blocking_target> out;
    for (const auto& b : md->brokers) {
        out[b.node_id.value()] =
            net::blocking_target{b.host, uint16_t(b.port), client_id, opts.timeout, boot->security};
    }
    return out;
}

}  // namespace samsa::tools
