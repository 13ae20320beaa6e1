// `samsa get-offsets`: the offsets of partitions at a time, as
// kafka-get-offsets.sh (GetOffsetShell) prints them, one `topic:partition:offset`
// line per partition, sorted:
//
//   --topic REGEX [--partitions 0,1]   topics whose whole name matches
//   --topic-partitions SPECS           topic1:1,topic2:0-3,topic3,topic4:5-,topic5:-3
//                                      (a range's upper bound is exclusive)
//   --time -1|latest, -2|earliest, -3|max-timestamp, -4|earliest-local,
//          -5|latest-tiered, or a timestamp in ms (the first offset at or after it)
//   --exclude-internal-topics
//
// ListOffsets goes to each partition's leader (raw, as librdkafka here has no
// max-timestamp lookup); a partition that answers with an error is reported on
// stderr and left out, as Kafka's tool does.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "net/blocking_call.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

constexpr const char* k_client_id = "samsa-get-offsets";

struct get_offsets_options {
    client_options client;
    std::string topic;
    std::string partitions;
    std::string topic_partitions;
    std::string time = "-1";
    bool exclude_internal = false;
};

// One topic-partition pattern: a topic regex (empty: any) and a partition
// range [from, to) (to -1: no bound).
struct partition_filter {
    std::optional<std::regex> topic;
    int64_t from = 0;
    int64_t to = -1;
    bool matches(const std::string& t, int32_t p) const {
        return (!topic || std::regex_match(t, *topic)) && p >= from && (to < 0 || p < to);
    }
};

std::optional<int64_t> number(std::string_view s) {
    int64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(sep, start);
        out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    return out;
}

result<std::optional<std::regex>> topic_regex(const std::string& text) {
    if (text.empty()) {
        return std::optional<std::regex>{};
    }
    try {
        return std::optional<std::regex>{std::regex(text, std::regex::ECMAScript)};
    } catch (const std::regex_error&) {
        return error(error_code::invalid_config, "Invalid topic pattern: " + text);
    }
}

// Kafka's --topic-partitions grammar: ([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?
result<std::vector<partition_filter>> parse_specs(const std::string& specs) {
    std::vector<partition_filter> out;
    for (const auto& spec : split(specs, ',')) {
        const auto colon = spec.find(':');
        auto re = topic_regex(spec.substr(0, colon));
        if (!re) {
            return re.err();
        }
        partition_filter f{std::move(*re)};
        if (colon != std::string::npos) {
            const std::string part = spec.substr(colon + 1);
            const auto dash = part.find('-');
            const auto bad = error(error_code::invalid_config, "Invalid topic-partition: " + spec);
            if (dash == std::string::npos) {
                auto n = number(part);
                if (part.empty()) {
                    // "topic:" accepts every partition.
                } else if (!n) {
                    return bad;
                } else {
                    f.from = *n;
                    f.to = *n + 1;
                }
            } else {
                const std::string lo = part.substr(0, dash), hi = part.substr(dash + 1);
                auto l = lo.empty() ? std::optional<int64_t>(0) : number(lo);
                auto h = hi.empty() ? std::optional<int64_t>(-1) : number(hi);
                if (!l || !h) {
                    return bad;
                }
                f.from = *l;
                f.to = *h;
            }
        }
        out.push_back(std::move(f));
    }
    return out;
}

result<int64_t> parse_time(const std::string& t) {
    static const std::map<std::string, int64_t> names{{"latest", -1},
                                                      {"earliest", -2},
                                                      {"max-timestamp", -3},
                                                      {"earliest-local", -4},
                                                      {"latest-tiered", -5}};
    if (auto it = names.find(t); it != names.end()) {
        return it->second;
    }
    auto n = number(t);
    if (!n || *n < -5) {
        return error(error_code::invalid_config,
                     "Malformed time argument " + t +
                         ". Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 "
                         "or earliest-local / -5 or latest-tiered, or a specified long format "
                         "timestamp");
    }
    return *n;
}

int run_get_offsets(const get_offsets_options& o) {
    if (!o.topic_partitions.empty() && (!o.topic.empty() || !o.partitions.empty())) {
        return fail("--topic-partitions cannot be used with --topic or --partitions");
    }
    std::vector<partition_filter> filters;
    if (!o.topic_partitions.empty()) {
        auto f = parse_specs(o.topic_partitions);
        if (!f) {
            return fail(f.err());
        }
        filters = std::move(*f);
    } else {
        auto re = topic_regex(o.topic);
        if (!re) {
            return fail(re.err());
        }
        if (o.partitions.empty()) {
            filters.push_back({*re});
        }
        for (const auto& p :
             o.partitions.empty() ? std::vector<std::string>{} : split(o.partitions, ',')) {
            auto n = number(p);
            if (!n) {
                return fail("Invalid partition: " + p);
            }
            filters.push_back({*re, *n, *n + 1});
        }
    }
    auto time = parse_time(o.time);
    if (!time) {
        return fail(time.err());
    }
    auto boot = bootstrap_target(o.client, k_client_id);
    if (!boot) {
        return fail(boot.err());
    }
    protocol::metadata_request md_req;
    md_req.topics = std::nullopt;  // every topic
    md_req.allow_auto_topic_creation = false;
    auto md = net::call_blocking<protocol::metadata_response>(*boot, md_req, 9);
    if (!md) {
        return fail(md.err());
    }
    std::map<int32_t, net::blocking_target> leaders_at;
    for (const auto& b : md->brokers) {
        leaders_at[b.node_id.value()] = net::blocking_target{b.host, uint16_t(b.port), k_client_id,
                                                             o.client.timeout, boot->security};
    }
    // (topic, partition) -> leader, for the partitions asked for.
    std::map<std::pair<std::string, int32_t>, int32_t> wanted;
    for (const auto& t : md->topics) {
        const std::string name = t.name.value_or("");
        if (t.error_code != 0 || (o.exclude_internal && t.is_internal)) {
            continue;
        }
        for (const auto& p : t.partitions) {
            if (std::any_of(filters.begin(), filters.end(),
                            [&](const auto& f) { return f.matches(name, p.partition_index); })) {
                wanted[{name, p.partition_index}] = p.leader_id.value();
            }
        }
    }
    if (wanted.empty()) {
        return fail("Could not match any topic-partitions with the specified filters");
    }
    // max-timestamp needs ListOffsets v7, earliest-local and latest-tiered v9.
    const int16_t version = *time <= -4 ? 9 : 7;
    std::map<std::pair<std::string, int32_t>, int64_t> offsets;
    std::map<int32_t, std::vector<std::pair<std::string, int32_t>>> by_leader;
    for (const auto& [tp, leader] : wanted) {
        by_leader[leader].push_back(tp);
    }
    for (const auto& [leader, tps] : by_leader) {
        auto to = leaders_at.find(leader);
        if (to == leaders_at.end()) {
            for (const auto& tp : tps) {
                std::fprintf(stderr,
                             "Skip getting offsets for topic-partition %s-%d due to error: "
                             "There is no leader for this topic-partition.\n",
                             tp.first.c_str(), tp.second);
            }
            continue;
        }
        protocol::list_offsets_request req;
        req.replica_id = no_node;
        for (const auto& [topic, partition] : tps) {
            if (req.topics.empty() || req.topics.back().name != topic) {
                req.topics.emplace_back().name = topic;
            }
            auto& p = req.topics.back().partitions.emplace_back();
            p.partition_index = partition;
            p.timestamp = *time;
        }
        auto resp = net::call_blocking<protocol::list_offsets_response>(to->second, req, version);
        if (!resp) {
            return fail(resp.err());
        }
        for (const auto& t : resp->topics) {
            for (const auto& p : t.partitions) {
                if (p.error_code != 0) {
                    std::fprintf(stderr,
                                 "Skip getting offsets for topic-partition %s-%d due to error: "
                                 "%s\n",
                                 t.name.c_str(), p.partition_index,
                                 message_of(p.error_code, std::nullopt).c_str());
                    continue;
                }
                offsets[{t.name, p.partition_index}] = p.offset;
            }
        }
    }
    for (const auto& [tp, offset] : offsets) {
        std::printf("%s:%d:%lld\n", tp.first.c_str(), tp.second, static_cast<long long>(offset));
    }
    return 0;
}

}  // namespace

tool_command add_get_offsets_command(CLI::App& app) {
    auto o = std::make_shared<get_offsets_options>();
    auto* cmd = add_verb(app, "get-offsets",
                         "Offsets of partitions at a time: latest, earliest, max-timestamp or a "
                         "timestamp (kafka-get-offsets.sh)");
    add_client_options(*cmd, o->client);
    cmd->add_option("--topic", o->topic,
                    "Topics to query: a regular expression a whole topic name must match");
    cmd->add_option("--partitions", o->partitions, "Partitions of --topic, as 0,1 (default: all)");
    cmd->add_option("--topic-partitions", o->topic_partitions,
                    "Patterns topic:partition, e.g. topic1:1,topic2:0-3,topic3,topic4:5-,"
                    "topic5:-3 (a range's upper bound is exclusive)");
    cmd->add_option("--time", o->time,
                    "-1 or latest, -2 or earliest, -3 or max-timestamp, -4 or earliest-local, "
                    "-5 or latest-tiered, or a timestamp in milliseconds");
    cmd->add_flag("--exclude-internal-topics", o->exclude_internal,
                  "Leave out internal topics (__consumer_offsets, __transaction_state)");
    return {cmd, [o] { return run_get_offsets(*o); }};
}

}  // namespace samsa::tools
