// `samsa groups`: kafka-consumer-groups.sh — list, describe (offsets, members,
// state), delete consumer groups and reset their committed offsets.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "common/ascii.h"
#include "tools/commands.h"
#include "tools/consumer_group_describe.h"
#include "tools/group_admin.h"
#include "tools/group_offsets_delete.h"
#include "tools/group_offsets_reset.h"
#include "tools/group_types_list.h"
#include "tools/kafka_client.h"
#include "tools/text_table.h"

namespace samsa::tools {

namespace {

constexpr const char* k_missing = "-";

struct groups_options {
    client_options client;
    bool list = false, describe = false, remove = false, reset = false, delete_offsets = false;
    std::vector<std::string> groups;
    bool all_groups = false;
    bool members = false, offsets = false, verbose = false;
    CLI::Option* state = nullptr;  // a flag with --describe, a filter with --list
    std::string state_filter;
    CLI::Option* type = nullptr;  // with --list: show types, optionally only these
    std::string type_filter;
    std::vector<std::string> topics;
    bool all_topics = false;
    bool to_earliest = false, to_latest = false, to_current = false;
    std::optional<int64_t> to_offset, shift_by;
    std::optional<std::string> to_datetime;
    bool execute = false, dry_run = false;
};

std::string assignment_text(const std::vector<topic_partition>& parts) {
    std::map<std::string, std::vector<int32_t>> by_topic;
    for (const auto& [t, p] : parts) {
        by_topic[t].push_back(p);
    }
    std::string out;
    for (auto& [t, ps] : by_topic) {
        std::sort(ps.begin(), ps.end());
        if (!out.empty()) {
            out += ';';
        }
        out += t;
        out += ':';
        for (size_t i = 0; i < ps.size(); ++i) {
            if (i > 0) {
                out += ',';
            }
            out += std::to_string(ps[i]);
        }
    }
    return out.empty() ? k_missing : out;
}

// Kafka's checks before printing a group: false when there is nothing to show.
bool announce_state(const group_description& g, size_t rows, bool& failed) {
    if (g.state == "Dead") {
        std::fprintf(stderr, "Error: Consumer group '%s' does not exist.\n", g.group_id.c_str());
        failed = true;
        return false;
    }
    if (g.state == "Empty") {
        std::fprintf(stderr, "\nConsumer group '%s' has no active members.\n", g.group_id.c_str());
    } else if (g.state == "PreparingRebalance" || g.state == "CompletingRebalance" ||
               g.state == "Assigning" || g.state == "Reconciling") {
        std::fprintf(stderr, "\nWarning: Consumer group '%s' is rebalancing.\n",
                     g.group_id.c_str());
    }
    return rows > 0;
}

int describe_offsets(kafka_client& client, const group_description& g, bool& failed) {
    auto committed = committed_offsets(client, g.group_id);
    if (!committed) {
        return fail(committed.err());
    }
    struct row {
        topic_partition tp;
        const group_member* member;
    };
    std::vector<row> rows;
    std::set<topic_partition> assigned;
    // Members with the most partitions first, as Kafka orders them.
    std::vector<const group_member*> members;
    for (const auto& m : g.members) {
        if (!m.assignment.empty()) {
            members.push_back(&m);
        }
    }
    std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
        return a->assignment.size() > b->assignment.size();
    });
    for (const auto* m : members) {
        for (const auto& tp : m->assignment) {
            rows.push_back({tp, m});
            assigned.insert(tp);
        }
    }
    for (const auto& [tp, _] : *committed) {
        if (!assigned.count(tp)) {
            rows.push_back({tp, nullptr});
        }
    }
    if (!announce_state(g, rows.size(), failed)) {
        return 0;
    }
    text_table table({{"GROUP", 15},
                      {"TOPIC", 15},
                      {"PARTITION", 10},
                      {"CURRENT-OFFSET", 15},
                      {"LOG-END-OFFSET", 15},
                      {"LAG", 15},
                      {"CONSUMER-ID", 15},
                      {"HOST", 15},
                      {"CLIENT-ID", 0}});
    for (const auto& r : rows) {
        auto current = committed->find(r.tp);
        std::optional<int64_t> end;
        if (auto wm = client.query_watermarks(r.tp.first, r.tp.second)) {
            end = wm->high;
        }
        std::string lag = k_missing;
        if (current != committed->end() && end) {
            lag = std::to_string(*end - current->second);
        }
        table.add_row({g.group_id, r.tp.first, std::to_string(r.tp.second),
                       current != committed->end() ? std::to_string(current->second) : k_missing,
                       end ? std::to_string(*end) : k_missing, lag,
                       r.member ? r.member->consumer_id : k_missing,
                       r.member ? r.member->host : k_missing,
                       r.member ? r.member->client_id : k_missing});
    }
    std::printf("\n%s", table.render().c_str());
    return 0;
}

int describe_members(const group_description& g, bool verbose, bool& failed) {
    if (!announce_state(g, g.members.size(), failed)) {
        return 0;
    }
    bool with_instance = std::any_of(g.members.begin(), g.members.end(),
                                     [](const auto& m) { return !m.group_instance_id.empty(); });
    std::vector<table_column> cols = {{"GROUP", 15}, {"CONSUMER-ID", 15}};
    if (with_instance) {
        cols.push_back({"GROUP-INSTANCE-ID", 17});
    }
    cols.insert(cols.end(), {{"HOST", 15}, {"CLIENT-ID", 15}, {"#PARTITIONS", 15}});
    if (verbose) {
        // Kafka 4's columns; a classic group's members have no epochs.
        cols.insert(cols.end(), {{"CURRENT-EPOCH", 15},
                                 {"CURRENT-ASSIGNMENT", 20},
                                 {"TARGET-EPOCH", 15},
                                 {"TARGET-ASSIGNMENT", 0}});
    }
    auto epoch = [](const std::optional<int32_t>& e) {
        return e ? std::to_string(*e) : std::string(k_missing);
    };
    text_table table(cols);
    for (const auto& m : g.members) {
        std::vector<std::string> row = {g.group_id, m.consumer_id};
        if (with_instance) {
            row.push_back(m.group_instance_id.empty() ? k_missing : m.group_instance_id);
        }
        row.insert(row.end(), {m.host, m.client_id, std::to_string(m.assignment.size())});
        if (verbose) {
            row.insert(row.end(), {epoch(m.current_epoch), assignment_text(m.assignment),
                                   epoch(m.target_epoch), assignment_text(m.target_assignment)});
        }
        table.add_row(std::move(row));
    }
    std::printf("\n%s", table.render().c_str());
    return 0;
}

int describe_state(const group_description& g, bool verbose, bool& failed) {
    if (!announce_state(g, 1, failed)) {
        return 0;
    }
    std::string coordinator = g.coordinator.host + ":" + std::to_string(g.coordinator.port) +
                              "  (" + std::to_string(g.coordinator.id) + ")";
    std::vector<table_column> cols = {
        {"GROUP", 15}, {"COORDINATOR (ID)", 25}, {"ASSIGNMENT-STRATEGY", 20}, {"STATE", 20}};
    std::vector<std::string> row = {g.group_id, coordinator,
                                    g.assignor.empty() ? k_missing : g.assignor, g.state};
    if (verbose) {
        // Kafka 4: the group's epochs (consumer groups; "-" for classic ones).
        cols.insert(cols.end(), {{"GROUP-EPOCH", 15}, {"TARGET-ASSIGNMENT-EPOCH", 25}});
        row.push_back(g.group_epoch ? std::to_string(*g.group_epoch) : k_missing);
        row.push_back(g.target_assignment_epoch ? std::to_string(*g.target_assignment_epoch)
                                                : k_missing);
    }
    cols.push_back({"#MEMBERS", 0});
    row.push_back(std::to_string(g.members.size()));
    text_table table(cols);
    table.add_row(std::move(row));
    std::printf("\n%s", table.render().c_str());
    return 0;
}

result<std::vector<std::string>> target_groups(kafka_client& client, const groups_options& o) {
    if (o.all_groups) {
        auto listed = list_groups(client);
        if (!listed) {
            return listed.err();
        }
        std::vector<std::string> out;
        for (const auto& l : *listed) {
            out.push_back(l.group_id);
        }
        return out;
    }
    if (o.groups.empty()) {
        return tool_error("this action needs --group (or --all-groups)");
    }
    return o.groups;
}

// "a, B,c" -> {"a", "b", "c"}.
std::set<std::string> lower_list(const std::string& text) {
    std::set<std::string> out;
    size_t start = 0;
    while (start < text.size()) {
        size_t comma = text.find(',', start);
        std::string s = text.substr(start, comma - start);
        s.erase(0, s.find_first_not_of(' '));
        s.erase(s.find_last_not_of(' ') + 1);
        if (!s.empty()) {
            out.insert(ascii_lower(s));
        }
        start = comma == std::string::npos ? text.size() : comma + 1;
    }
    return out;
}

// --list --type [t1,t2] (with or without --state): GROUP, TYPE (and STATE)
// from ListGroups v5, as kafka-consumer-groups.sh prints them.
int run_list_with_types(const groups_options& o) {
    const auto types = lower_list(o.type_filter);
    for (const auto& t : types) {
        if (t != "classic" && t != "consumer") {
            return fail("Invalid types list '" + o.type_filter +
                        "'. Valid types are: Classic, Consumer");
        }
    }
    const bool with_state = o.state->count() > 0;
    auto listed = list_groups_with_types(o.client, types, lower_list(o.state_filter));
    if (!listed) {
        return fail(listed.err());
    }
    size_t width = 15;
    for (const auto& l : *listed) {
        width = std::max(width, l.group_id.size());
    }
    std::vector<table_column> cols = {{"GROUP", width + 10},
                                      {"TYPE", with_state ? size_t(20) : size_t(0)}};
    if (with_state) {
        cols.push_back({"STATE", 0});
    }
    text_table table(cols);
    for (const auto& l : *listed) {
        std::vector<std::string> row = {l.group_id, l.type};
        if (with_state) {
            row.push_back(l.state);
        }
        table.add_row(std::move(row));
    }
    std::printf("%s", table.render().c_str());
    return 0;
}

int run_list(kafka_client& client, const groups_options& o) {
    if (o.type->count() > 0) {
        return run_list_with_types(o);
    }
    auto listed = list_groups(client);
    if (!listed) {
        return fail(listed.err());
    }
    bool with_state = o.state->count() > 0;
    if (!with_state) {
        for (const auto& l : *listed) {
            std::printf("%s\n", l.group_id.c_str());
        }
        return 0;
    }
    // --state [s1,s2]: a table of groups and states, filtered when states are named.
    const std::set<std::string> wanted = lower_list(o.state_filter);
    size_t width = 15;
    for (const auto& l : *listed) {
        width = std::max(width, l.group_id.size());
    }
    text_table table({{"GROUP", width + 10}, {"STATE", 0}});
    for (const auto& l : *listed) {
        if (wanted.empty() || wanted.count(ascii_lower(l.state))) {
            table.add_row({l.group_id, l.state});
        }
    }
    std::printf("%s", table.render().c_str());
    return 0;
}

int run_describe(kafka_client& client, const groups_options& o) {
    auto groups = target_groups(client, o);
    if (!groups) {
        return fail(groups.err());
    }
    int modes = o.members + o.offsets + (o.state->count() > 0);
    if (modes > 1) {
        return fail("--describe takes only one of --members, --offsets, --state");
    }
    bool failed = false;
    for (const auto& id : *groups) {
        // A consumer group (KIP-848) first, as Kafka's admin client asks.
        auto consumer = describe_consumer_group(o.client, id);
        if (!consumer) {
            return fail(consumer.err());
        }
        auto g = *consumer ? result<group_description>(std::move(**consumer))
                           : describe_group(client, id);
        if (!g) {
            return fail(g.err());
        }
        int code = o.members              ? describe_members(*g, o.verbose, failed)
                   : o.state->count() > 0 ? describe_state(*g, o.verbose, failed)
                                          : describe_offsets(client, *g, failed);
        if (code != 0) {
            return code;
        }
    }
    return failed ? 1 : 0;
}

int run_delete(kafka_client& client, const groups_options& o) {
    auto groups = target_groups(client, o);
    if (!groups) {
        return fail(groups.err());
    }
    if (groups->empty()) {
        return 0;
    }
    auto results = delete_groups(client, *groups);
    if (!results) {
        return fail(results.err());
    }
    std::string ok, failed;
    for (const auto& [g, err] : *results) {
        if (err.empty()) {
            ok += (ok.empty() ? "'" : ", '") + g + "'";
        } else {
            failed += "* Group '" + g + "' could not be deleted due to: " + err + "\n";
        }
    }
    if (failed.empty()) {
        std::printf("Deletion of requested consumer groups (%s) was successful.\n", ok.c_str());
        return 0;
    }
    std::fprintf(stderr, "Error: Deletion of some consumer groups failed:\n%s", failed.c_str());
    if (!ok.empty()) {
        std::printf("These consumer groups were deleted successfully: %s\n", ok.c_str());
    }
    return 1;
}

int run_reset(kafka_client& client, const groups_options& o) {
    int scenarios = o.to_earliest + o.to_latest + o.to_current + o.to_offset.has_value() +
                    o.shift_by.has_value() + o.to_datetime.has_value();
    if (scenarios != 1) {
        return fail(
            "--reset-offsets needs exactly one of --to-earliest, --to-latest, --to-current, "
            "--to-offset, --shift-by, --to-datetime");
    }
    if (o.all_topics == !o.topics.empty()) {
        return fail("One of the reset scopes should be defined: --all-topics, --topic.");
    }
    if (o.execute && o.dry_run) {
        return fail("--execute and --dry-run cannot be given together");
    }
    if (!o.execute && !o.dry_run) {
        std::fprintf(stderr,
                     "WARN: No action will be performed as the --execute option is missing. "
                     "Add --dry-run to ask for this explicitly.\n");
    }
    reset_request req;
    req.topics = o.topics;
    req.all_topics = o.all_topics;
    req.execute = o.execute;
    if (o.to_earliest) {
        req.kind = reset_kind::earliest;
    } else if (o.to_latest) {
        req.kind = reset_kind::latest;
    } else if (o.to_current) {
        req.kind = reset_kind::to_current;
    } else if (o.to_offset) {
        req.kind = reset_kind::to_offset;
        req.value = *o.to_offset;
    } else if (o.shift_by) {
        req.kind = reset_kind::shift_by;
        req.value = *o.shift_by;
    } else {
        auto ms = parse_reset_datetime(*o.to_datetime);
        if (!ms) {
            return fail("--to-datetime expects YYYY-MM-DDTHH:mm:SS.sss[Z|+hh:mm], got '" +
                        *o.to_datetime + "'");
        }
        req.kind = reset_kind::to_datetime;
        req.value = *ms;
    }
    auto groups = target_groups(client, o);
    if (!groups) {
        return fail(groups.err());
    }
    for (const auto& g : *groups) {
        req.group = g;
        if (int code = run_reset_offsets(client, req); code != 0) {
            return code;
        }
    }
    return 0;
}

int run_groups(const groups_options& o) {
    if (o.list + o.describe + o.remove + o.reset + o.delete_offsets != 1) {
        return fail(
            "Command must include exactly one action: --list, --describe, --delete, "
            "--reset-offsets, --delete-offsets");
    }
    if (o.delete_offsets && (o.groups.size() != 1 || o.topics.empty())) {
        return fail("--delete-offsets needs one --group and at least one --topic");
    }
    auto client =
        kafka_client::create(client_kind::producer, o.client, {{"client.id", "samsa-groups"}});
    if (!client) {
        return fail(client.err());
    }
    if (o.list) {
        return run_list(*client, o);
    }
    if (o.describe) {
        return run_describe(*client, o);
    }
    if (o.remove) {
        return run_delete(*client, o);
    }
    if (o.delete_offsets) {
        return run_delete_group_offsets(*client, o.groups.front(), o.topics);
    }
    return run_reset(*client, o);
}

}  // namespace

tool_command add_groups_command(CLI::App& app) {
    auto o = std::make_shared<groups_options>();
    auto* cmd = add_verb(app, "groups", "List, describe, delete consumer groups; reset offsets");
    add_client_options(*cmd, o->client);
    cmd->add_flag("--list", o->list, "List the consumer groups");
    cmd->add_flag("--describe", o->describe,
                  "Describe groups: offsets and lag (default), "
                  "--members or --state");
    cmd->add_flag("--delete", o->remove, "Delete groups (they must have no active members)");
    cmd->add_flag("--reset-offsets", o->reset, "Reset the committed offsets of an inactive group");
    cmd->add_flag("--delete-offsets", o->delete_offsets,
                  "Delete the committed offsets of --topic (topic, or topic:0,1) of a group "
                  "(OffsetDelete)");
    cmd->add_option("--group", o->groups, "Consumer group (repeatable)");
    cmd->add_flag("--all-groups", o->all_groups, "Apply to every group");
    cmd->add_flag("--members", o->members, "With --describe: the members of the group");
    cmd->add_flag("--offsets", o->offsets, "With --describe: offsets and lag (the default)");
    o->state = cmd->add_option("--state", o->state_filter,
                               "With --describe: the group's state and coordinator; with --list: "
                               "show states, optionally only these (e.g. Stable,Empty)")
                   ->expected(0, 1);
    o->type = cmd->add_option("--type", o->type_filter,
                              "With --list: show group types (KIP-848), optionally only these "
                              "(classic, consumer)")
                  ->expected(0, 1);
    cmd->add_flag("--verbose", o->verbose,
                  "With --describe --members: each member's epochs and partitions; with "
                  "--describe --state: the group's epochs");
    cmd->add_option("--topic", o->topics,
                    "With --reset-offsets or --delete-offsets: topic, or topic:0,1 for some "
                    "partitions (repeatable)");
    cmd->add_flag("--all-topics", o->all_topics,
                  "With --reset-offsets: every partition the group has an offset for");
    cmd->add_flag("--to-earliest", o->to_earliest, "Reset to the earliest offset");
    cmd->add_flag("--to-latest", o->to_latest, "Reset to the latest offset (log end)");
    cmd->add_flag("--to-current", o->to_current, "Reset to the committed offset");
    cmd->add_option("--to-offset", o->to_offset, "Reset to this offset");
    cmd->add_option("--shift-by", o->shift_by, "Move the committed offset by N (may be negative)");
    cmd->add_option("--to-datetime", o->to_datetime,
                    "Reset to the first offset at or after YYYY-MM-DDTHH:mm:SS.sss (UTC unless "
                    "a zone is given)");
    cmd->add_flag("--execute", o->execute, "Commit the new offsets");
    cmd->add_flag("--dry-run", o->dry_run, "Only show the new offsets (the default)");
    return {cmd, [o] { return run_groups(*o); }};
}

}  // namespace samsa::tools
