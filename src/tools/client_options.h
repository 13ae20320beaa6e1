#pragma once
// What every client verb of `samsa` shares: where the cluster is, extra client
// properties (Kafka's --command-config), and how long one blocking step may take.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "net/blocking_call.h"

namespace CLI {
class App;
}

namespace samsa::tools {

// key=value settings in the order they were given (later ones win).
using property_list = std::vector<std::pair<std::string, std::string>>;

struct client_options {
    std::string bootstrap_server = "localhost:9092";
    std::string command_config;  // a .properties file of client settings, or empty
    std::chrono::milliseconds timeout{30'000};
    bool verbose = false;  // pass librdkafka's own log lines through to stderr
};

// Adds --bootstrap-server, --command-config, --timeout and --client-debug to `app`.
void add_client_options(CLI::App& app, client_options& opts);

// "30s", "500ms", "2m", "1.5s", "1h"; a bare number means seconds.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);
// "2s", "1.5s", "250ms": the shortest exact spelling, for messages.
std::string format_duration(std::chrono::milliseconds d);

// "key=value" (the value may itself contain '='); an error names the input.
result<std::pair<std::string, std::string>> parse_key_value(std::string_view text);
result<property_list> parse_key_values(const std::vector<std::string>& texts);

// A Java .properties file (--command-config and the like), read by the
// project's one parser (common/config/properties.h, as the broker reads
// server.properties): continuation lines, key=value, key:value and
// "key value", escapes; values trimmed as Java clients trim them.
result<property_list> load_properties_file(const std::string& path);

// The first --bootstrap-server, for the raw calls a verb makes where the
// client library has no API.
result<std::pair<std::string, uint16_t>> first_bootstrap(const client_options& opts);
// How raw calls speak to the listener: TLS and/or SASL as the
// --command-config's security.protocol asks (tools/client_security.cc);
// null for PLAINTEXT. A setting it cannot honour is an error, never a
// downgrade.
result<std::shared_ptr<const security::client_security>> client_security_of(
    const client_options& opts);
// A --command-config written for Java clients, for librdkafka: the login of
// sasl.jaas.config becomes sasl.username and sasl.password, a PEM
// ssl.truststore.location ssl.ca.location, and a PEM ssl.keystore.location
// (key and chain in one file) ssl.certificate.location and ssl.key.location
// (librdkafka reads ssl.keystore.location as PKCS#12). Keys librdkafka knows
// pass unchanged; one it already has in its own name is not overwritten.
result<property_list> for_librdkafka(const property_list& settings);
// A broker (from a Metadata answer) as the target of raw calls, with
// --timeout and the --command-config's security.
result<net::blocking_target> target_at(const client_options& opts, std::string host, int32_t port,
                                       std::string client_id);
// That broker as the target of raw calls (net/blocking_call.h), with --timeout
// and the --command-config's security.
result<net::blocking_target> bootstrap_target(const client_options& opts, std::string client_id);
// Every broker of the cluster, by id, as raw-call targets: from the Metadata
// answer of the first bootstrap server (what a broker changes or tells about
// itself is asked of that broker).
result<std::map<int32_t, net::blocking_target>> broker_targets(const client_options& opts,
                                                               const std::string& client_id);

// An error value carrying only a message (the code is not a Kafka answer).
inline samsa::error tool_error(std::string message) {
    return samsa::error{error_code::unknown_server_error, std::move(message)};
}

}  // namespace samsa::tools
