#include "server/http/admin_writes.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <thread>

#include "common/logging/loggers.h"
#include "metadata/metadata_image.h"
#include "net/blocking_call.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "server/broker_context.h"
#include "server/http/basic_auth.h"
#include "server/http/json_response.h"

namespace samsa::server::http {

using nlohmann::json;

int http_status_of(error_code ec) {
    switch (ec) {
        case error_code::none:
            return 200;
        case error_code::topic_authorization_failed:
        case error_code::group_authorization_failed:
        case error_code::cluster_authorization_failed:
            return 403;
        case error_code::unknown_topic_or_partition:
        case error_code::unknown_topic_id:
        case error_code::group_id_not_found:
            return 404;
        case error_code::topic_already_exists:
        case error_code::unknown_member_id:
        case error_code::non_empty_group:
        case error_code::not_coordinator:
        case error_code::not_leader_or_follower:
        case error_code::not_controller:
        case error_code::coordinator_load_in_progress:
        case error_code::coordinator_not_available:
        case error_code::leader_not_available:
            return 409;
        case error_code::request_timed_out:
            return 504;
        case error_code::unknown_server_error:
            return 500;
        default:
            return 400;
    }
}

namespace {

constexpr auto k_call_timeout = std::chrono::seconds(30);

http_response failure(int status, std::string_view error, std::string message) {
    return json_response(status, {{"error", error}, {"message", std::move(message)}});
}

http_response failure(error_code ec, const std::optional<std::string>& message) {
    return failure(http_status_of(ec), error_name(ec),
                   message && !message->empty() ? *message : std::string(error_message(ec)));
}

http_response failure(const error& e) {
    return failure(e.code, e.message);
}

// Who may write, or the answer that refuses: writes disabled (403), a body
// that is not JSON (415), no or wrong credentials (401).
std::optional<http_response> refusal(const admin_writes& w, const http_request& req, bool json_body,
                                     local_caller& who) {
    if (!w.enabled) {
        return failure(403, "WRITES_DISABLED",
                       "this listener serves no changes: set "
                       "metrics.listener.admin.writes.enable=true to allow them");
    }
    if (json_body && req.content_type.rfind("application/json", 0) != 0) {
        return failure(415, "UNSUPPORTED_MEDIA_TYPE", "the request body must be application/json");
    }
    who.client_host = req.remote_addr;
    const bool signed_in = !req.authorization.empty();
    if (!signed_in && !w.authorizer) {
        return std::nullopt;  // User:ANONYMOUS, as on a listener without an authorizer
    }
    auto unauthorized = [](std::string message) {
        auto r = failure(401, "SASL_AUTHENTICATION_FAILED", std::move(message));
        r.headers.push_back({"WWW-Authenticate", "Basic realm=\"samsa\", charset=\"UTF-8\""});
        return r;
    };
    if (!signed_in) {
        return unauthorized("sign in with HTTP Basic credentials of a SASL user");
    }
    const auto credentials = parse_basic_authorization(req.authorization);
    if (!credentials) {
        return unauthorized("the Authorization header is not HTTP Basic user:password");
    }
    if (!password_matches(*w.target.broker->metadata.read(), w.plain_users, *credentials)) {
        logging::security().info("event=admin_api_sign_in_failed user=\"{}\" host={}",
                                 credentials->user, req.remote_addr);
        return unauthorized("Authentication failed: Invalid username or password");
    }
    who.principal = "User:" + credentials->user;
    return std::nullopt;
}

std::optional<json> parse_body(const http_request& req) {
    json body = json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.is_object()) {
        return std::nullopt;
    }
    return body;
}

http_response bad_body(std::string message) {
    return failure(400, "INVALID_REQUEST", std::move(message));
}

void log_write(const local_caller& who, std::string_view what, std::string_view target,
               error_code outcome) {
    logging::server().info(
        "event=admin_api_write op={} target=\"{}\" principal={} host={} error={}", what, target,
        who.principal, who.client_host, error_name(outcome));
}

// The one entry a single-item request is answered with: logged as the
// write's outcome, and its error as the answer; nullopt when it succeeded.
template <typename Entries>
std::optional<http_response> single_outcome(const Entries& entries, std::string_view api,
                                            const local_caller& who, std::string_view op,
                                            std::string_view target) {
    if (entries.size() != 1) {
        return failure(500, "UNKNOWN_SERVER_ERROR", fmt::format("{} answered no entry", api));
    }
    const auto ec = error_code(entries.front().error_code);
    log_write(who, op, target, ec);
    if (ec != error_code::none) {
        return failure(ec, entries.front().error_message);
    }
    return std::nullopt;
}

}  // namespace

http_response create_topic(const admin_writes& w, const http_request& req) {
    local_caller who;
    if (auto no = refusal(w, req, true, who)) {
        return *no;
    }
    const auto body = parse_body(req);
    if (!body || !body->contains("name") || !(*body)["name"].is_string()) {
        return bad_body(
            "expected {\"name\": \"<topic>\", \"partitions\": N, "
            "\"replication_factor\": N, \"configs\": {\"<key>\": \"<value>\"}}");
    }
    protocol::create_topics_request r;
    r.timeout_ms = int32_t(std::chrono::milliseconds(k_call_timeout).count());
    auto& t = r.topics.emplace_back();
    t.name = (*body)["name"].get<std::string>();
    // -1: the broker's num.partitions and default.replication.factor (KIP-464).
    const auto number = [&](const char* key) -> std::optional<int64_t> {
        if (!body->contains(key)) {
            return -1;
        }
        const auto& v = (*body)[key];
        return v.is_number_integer() ? std::optional(v.get<int64_t>()) : std::nullopt;
    };
    const auto partitions = number("partitions");
    const auto replication = number("replication_factor");
    if (!partitions || !replication || *partitions < -1 || *partitions > INT32_MAX ||
        *replication < -1 || *replication > INT16_MAX) {
        return bad_body("partitions and replication_factor are integers (-1: the default)");
    }
    t.num_partitions = int32_t(*partitions);
    t.replication_factor = int16_t(*replication);
    if (body->contains("configs")) {
        const auto& configs = (*body)["configs"];
        if (!configs.is_object()) {
            return bad_body("configs is an object of strings");
        }
        for (const auto& [k, v] : configs.items()) {
            if (!v.is_string()) {
                return bad_body(fmt::format("config {} is not a string", k));
            }
            auto& c = t.configs.emplace_back();
            c.name = k;
            c.value = v.get<std::string>();
        }
    }
    auto resp = call_local<protocol::create_topics_response>(w.target, who, r, 7, k_call_timeout);
    if (!resp) {
        return failure(resp.err());
    }
    if (auto no = single_outcome(resp->topics, "CreateTopics", who, "create_topic", t.name)) {
        return *no;
    }
    const auto& answer = resp->topics.front();
    return json_response(201, {{"name", answer.name},
                               {"topic_id", answer.topic_id.to_string()},
                               {"partitions", answer.num_partitions},
                               {"replication_factor", answer.replication_factor}});
}

http_response delete_topic(const admin_writes& w, const http_request& req, std::string_view name) {
    local_caller who;
    if (auto no = refusal(w, req, false, who)) {
        return *no;
    }
    if (name.find('/') != std::string_view::npos) {
        return failure(404, "not found", "no such resource");
    }
    protocol::delete_topics_request r;
    r.timeout_ms = int32_t(std::chrono::milliseconds(k_call_timeout).count());
    r.topic_names.emplace_back(name);
    auto resp = call_local<protocol::delete_topics_response>(w.target, who, r, 5, k_call_timeout);
    if (!resp) {
        return failure(resp.err());
    }
    if (auto no = single_outcome(resp->responses, "DeleteTopics", who, "delete_topic", name)) {
        return *no;
    }
    return json_response(200, {{"name", name}, {"deleted", true}});
}

http_response set_logger_level(const admin_writes& w, const http_request& req,
                               std::string_view logger) {
    local_caller who;
    if (auto no = refusal(w, req, true, who)) {
        return *no;
    }
    const auto body = parse_body(req);
    if (!body || !body->contains("level") || !(*body)["level"].is_string()) {
        return bad_body("expected {\"level\": \"TRACE|DEBUG|INFO|WARN|ERROR|OFF\"}");
    }
    // A BROKER_LOGGER resource (KIP-412): named by this broker's id, one
    // config per logger, SET to the level.
    constexpr int8_t k_broker_logger = 8;
    constexpr int8_t k_set = 0;
    protocol::incremental_alter_configs_request r;
    auto& res = r.resources.emplace_back();
    res.resource_type = k_broker_logger;
    res.resource_name = std::to_string(w.target.broker->settings.node_id);
    auto& c = res.configs.emplace_back();
    c.name = std::string(logger);
    c.config_operation = k_set;
    c.value = (*body)["level"].get<std::string>();
    auto resp = call_local<protocol::incremental_alter_configs_response>(w.target, who, r, 1,
                                                                         k_call_timeout);
    if (!resp) {
        return failure(resp.err());
    }
    if (auto no = single_outcome(resp->responses, "IncrementalAlterConfigs", who,
                                 "set_logger_level", logger)) {
        return *no;
    }
    return json_response(200, {{"name", logger}, {"level", (*body)["level"]}});
}

namespace {

struct offset_target {
    int32_t partition = 0;
    int64_t offset = -1;
    error_code error = error_code::none;
};

protocol::list_offsets_request list_offsets_request_for(const std::string& topic,
                                                        const std::vector<int32_t>& partitions,
                                                        int64_t timestamp) {
    protocol::list_offsets_request r;
    r.replica_id = no_node;
    auto& t = r.topics.emplace_back();
    t.name = topic;
    for (int32_t p : partitions) {
        auto& lp = t.partitions.emplace_back();
        lp.partition_index = p;
        lp.timestamp = timestamp;
    }
    return r;
}

// Each partition's earliest (timestamp -2) or latest (-1) offset, by
// ListOffsets as a consumer asks (replica -1, read uncommitted): this
// broker's handler first (with the caller's principal, so its ACLs apply),
// then, for the partitions another broker leads, that broker over the same
// listener when it is a PLAINTEXT one (as an admin client asks each leader).
result<std::map<int32_t, std::pair<int64_t, error_code>>> list_offsets(
    const admin_writes& w, const local_caller& who, const std::string& topic,
    const std::vector<int32_t>& partitions, int64_t timestamp) {
    auto r = list_offsets_request_for(topic, partitions, timestamp);
    auto resp = call_local<protocol::list_offsets_response>(w.target, who, r, 7, k_call_timeout);
    if (!resp) {
        return resp.err();
    }
    std::map<int32_t, std::pair<int64_t, error_code>> out;
    for (const auto& rt : resp->topics) {
        for (const auto& rp : rt.partitions) {
            out[rp.partition_index] = {rp.offset, error_code(rp.error_code)};
        }
    }
    const auto image = w.target.broker->metadata.read();
    const auto* t = image->topic(topic);
    std::map<node_id, std::vector<int32_t>> by_leader;
    for (const auto& [p, answer] : out) {
        if (t && answer.second == error_code::not_leader_or_follower &&
            size_t(p) < t->partitions.size() && t->partitions[size_t(p)].leader.is_valid()) {
            by_leader[t->partitions[size_t(p)].leader].push_back(p);
        }
    }
    for (const auto& [leader, ps] : by_leader) {
        auto b = image->brokers.find(leader);
        const auto* e =
            b == image->brokers.end() ? nullptr : b->second.endpoint(w.target.listener_name);
        if (!e) {
            continue;  // no inter-broker endpoint: the partition keeps its error
        }
        net::blocking_target to{e->host, e->port, "samsa-admin-api", k_call_timeout,
                                w.target.security};
        auto remote = net::call_blocking<protocol::list_offsets_response>(
            to, list_offsets_request_for(topic, ps, timestamp), 7);
        if (!remote) {
            continue;
        }
        for (const auto& rt : remote->topics) {
            for (const auto& rp : rt.partitions) {
                out[rp.partition_index] = {rp.offset, error_code(rp.error_code)};
            }
        }
    }
    return out;
}

// The group's coordinator must be this broker, as /v1/groups lists only the
// groups coordinated here. FindCoordinator, as a client asks first, also
// creates __consumer_offsets when it does not exist yet; while its partition
// loads, ask again until the deadline.
error_code coordinated_here(const admin_writes& w, const local_caller& who,
                            const std::string& group, std::string& message) {
    const auto deadline = std::chrono::steady_clock::now() + k_call_timeout;
    for (;;) {
        protocol::find_coordinator_request r;
        r.key = group;
        auto resp =
            call_local<protocol::find_coordinator_response>(w.target, who, r, 3, k_call_timeout);
        if (!resp) {
            message = resp.err().message;
            return resp.err().code;
        }
        const auto ec = error_code(resp->error_code);
        if (ec == error_code::none && resp->node_id == node_id{w.target.broker->settings.node_id}) {
            return error_code::none;
        }
        if (ec == error_code::none) {
            message = fmt::format("group {} is coordinated by broker {}: reset it there", group,
                                  resp->node_id);
            return error_code::not_coordinator;
        }
        const bool transient = ec == error_code::coordinator_not_available ||
                               ec == error_code::coordinator_load_in_progress;
        if (!transient || std::chrono::steady_clock::now() >= deadline) {
            message = resp->error_message.value_or(std::string(error_message(ec)));
            return ec;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace

http_response reset_group_offsets(const admin_writes& w, const http_request& req,
                                  std::string_view rest) {
    constexpr std::string_view k_offsets = "/offsets";
    if (rest.size() <= k_offsets.size() || !rest.ends_with(k_offsets)) {
        return failure(404, "not found", "expected /v1/groups/<group>/offsets");
    }
    const std::string group(rest.substr(0, rest.size() - k_offsets.size()));
    local_caller who;
    if (auto no = refusal(w, req, true, who)) {
        return *no;
    }
    const auto body = parse_body(req);
    const char* shape =
        "expected {\"topic\": \"<topic>\", \"partitions\": [0, ...] (default: all), "
        "\"to\": \"earliest\" | \"latest\" | <offset>}";
    if (!body || !body->contains("topic") || !(*body)["topic"].is_string() ||
        !body->contains("to")) {
        return bad_body(shape);
    }
    const std::string topic = (*body)["topic"].get<std::string>();
    const auto& to = (*body)["to"];
    const bool to_earliest = to.is_string() && to.get<std::string>() == "earliest";
    const bool to_latest = to.is_string() && to.get<std::string>() == "latest";
    if (!to_earliest && !to_latest && !to.is_number_integer()) {
        return bad_body(shape);
    }
    std::vector<int32_t> partitions;
    {
        const auto image = w.target.broker->metadata.read();
        const auto* t = image->topic(topic);
        if (!t) {
            return failure(error_code::unknown_topic_or_partition, "no topic named " + topic);
        }
        if (body->contains("partitions")) {
            const auto& ps = (*body)["partitions"];
            if (!ps.is_array()) {
                return bad_body(shape);
            }
            for (const auto& p : ps) {
                if (!p.is_number_integer() || p.get<int64_t>() < 0 ||
                    p.get<int64_t>() >= int64_t(t->partitions.size())) {
                    return failure(error_code::unknown_topic_or_partition,
                                   fmt::format("{} has no partition {}", topic, p.dump()));
                }
                partitions.push_back(p.get<int32_t>());
            }
        } else {
            for (const auto& p : t->partitions) {
                partitions.push_back(p.partition);
            }
        }
    }
    std::sort(partitions.begin(), partitions.end());
    partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
    // An offset out of the log's range moves to its nearer end, as
    // kafka-consumer-groups --reset-offsets --to-offset does.
    auto earliest = list_offsets(w, who, topic, partitions, -2);
    auto latest = list_offsets(w, who, topic, partitions, -1);
    if (!earliest || !latest) {
        return failure(!earliest ? earliest.err() : latest.err());
    }
    std::vector<offset_target> targets;
    error_code first_error = error_code::none;
    for (int32_t p : partitions) {
        offset_target target{p};
        const auto low = earliest->find(p);
        const auto high = latest->find(p);
        if (low == earliest->end() || high == latest->end()) {
            target.error = error_code::unknown_topic_or_partition;
        } else {
            target.error =
                low->second.second != error_code::none ? low->second.second : high->second.second;
        }
        if (target.error == error_code::none) {
            const int64_t first = low->second.first, end = high->second.first;
            target.offset = to_earliest ? first
                            : to_latest ? end
                                        : std::max(first, std::min(to.get<int64_t>(), end));
        }
        if (first_error == error_code::none) {
            first_error = target.error;
        }
        targets.push_back(target);
    }
    auto answer = [&](error_code outcome) {
        json out = json::array();
        for (const auto& t : targets) {
            out.push_back({{"partition", t.partition},
                           {"offset", t.offset},
                           {"error", t.error == error_code::none ? json(nullptr)
                                                                 : json(error_name(t.error))}});
        }
        log_write(who, "reset_offsets", group + " " + topic, outcome);
        json j = {{"group_id", group}, {"topic", topic}, {"partitions", out}};
        if (outcome != error_code::none) {
            j["error"] = error_name(outcome);
            j["message"] = outcome == error_code::unknown_member_id
                               ? "the group has active members: offsets can be reset only "
                                 "while it is Empty"
                               : std::string(error_message(outcome));
        }
        return json_response(http_status_of(outcome), j);
    };
    if (first_error != error_code::none) {
        return answer(first_error);  // nothing committed
    }
    if (std::string why; (first_error = coordinated_here(w, who, group, why)) != error_code::none) {
        return failure(first_error, why);
    }
    // As the Admin client's alterConsumerGroupOffsets: no member, generation -1.
    protocol::offset_commit_request r;
    r.group_id = group;
    auto& ct = r.topics.emplace_back();
    ct.name = topic;
    for (const auto& t : targets) {
        auto& cp = ct.partitions.emplace_back();
        cp.partition_index = t.partition;
        cp.committed_offset = t.offset;
    }
    // The offsets partition may still be loading (a client retries the
    // same way: COORDINATOR_LOAD_IN_PROGRESS is retriable).
    const auto deadline = std::chrono::steady_clock::now() + k_call_timeout;
    for (;;) {
        auto resp =
            call_local<protocol::offset_commit_response>(w.target, who, r, 8, k_call_timeout);
        if (!resp) {
            return failure(resp.err());
        }
        first_error = error_code::none;
        for (const auto& rt : resp->topics) {
            for (const auto& rp : rt.partitions) {
                for (auto& t : targets) {
                    if (t.partition == rp.partition_index) {
                        t.error = error_code(rp.error_code);
                        if (first_error == error_code::none) {
                            first_error = t.error;
                        }
                    }
                }
            }
        }
        if (first_error != error_code::coordinator_load_in_progress ||
            std::chrono::steady_clock::now() >= deadline) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return answer(first_error);
}

}  // namespace samsa::server::http
