// `samsa acls`: kafka-acls.sh. Adds, removes and lists ACLs through raw
// CreateAcls, DeleteAcls and DescribeAcls calls (librdkafka 2.0 knows no
// TRANSACTIONAL_ID resources), with kafka-acls' options and output:
//
//   samsa acls --add --allow-principal User:alice --operation Read --topic orders
//   samsa acls --add --producer --allow-principal User:bob --topic logs-
//       --resource-pattern-type prefixed --transactional-id app --idempotent
//       (one command line)
//   samsa acls --add --consumer --allow-principal User:carol --topic orders --group billing
//   samsa acls --remove --force --topic orders
//   samsa acls --list [--topic orders] [--principal User:alice]
//
// The calls go to the first bootstrap server, secured as --command-config
// asks; the principal they authenticate as (User:ANONYMOUS on a PLAINTEXT
// listener) needs ALTER or DESCRIBE on the cluster.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "net/blocking_call.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"
#include "security/acl/acl.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

namespace acl = security::acl;

struct acls_options {
    client_options client;
    bool add = false;
    bool remove = false;
    bool list = false;
    std::vector<std::string> topics;
    std::vector<std::string> groups;
    std::vector<std::string> transactional_ids;
    bool cluster = false;
    std::string pattern_type = "LITERAL";
    std::vector<std::string> allow_principals;
    std::vector<std::string> deny_principals;
    std::vector<std::string> allow_hosts;
    std::vector<std::string> deny_hosts;
    std::vector<std::string> operations;
    std::vector<std::string> principals;  // --list filter
    bool producer = false;
    bool consumer = false;
    bool idempotent = false;
    bool force = false;
};

struct resource {
    acl::resource_type type;
    std::string name;
    acl::pattern_type pattern;
    auto operator<=>(const resource&) const = default;
};

struct entry {
    std::string principal;
    std::string host;
    acl::operation op;
    acl::permission perm;
    auto operator<=>(const entry&) const = default;
};

using resource_acls = std::map<resource, std::set<entry>>;

std::string pattern_text(const resource& r) {
    return "ResourcePattern(resourceType=" + std::string(acl::name_of(r.type)) +
           ", name=" + r.name + ", patternType=" + std::string(acl::name_of(r.pattern)) + ")";
}

std::string entry_text(const entry& e) {
    return "(principal=" + e.principal + ", host=" + e.host +
           ", operation=" + std::string(acl::name_of(e.op)) +
           ", permissionType=" + std::string(acl::name_of(e.perm)) + ")";
}

std::string entries_text(const std::set<entry>& entries) {
    std::string out;
    for (const auto& e : entries) {
        out += (out.empty() ? "" : "\n") + ("\t" + entry_text(e));
    }
    return out;
}

// Kafka's AclCommand: every failure is one line on stdout and exit code 1.
int command_failed(const std::string& message) {
    std::printf("Error while executing ACL command: %s\n", message.c_str());
    return 1;
}

// What --operation may name for a resource type: its operations, and ALL.
bool supports(acl::resource_type t, acl::operation op) {
    const auto& ops = acl::supported_operations(t);
    return op == acl::operation::all || std::find(ops.begin(), ops.end(), op) != ops.end();
}

std::vector<resource> resources_of(const acls_options& o, acl::pattern_type pattern) {
    std::vector<resource> out;
    for (const auto& t : o.topics) {
        out.push_back({acl::resource_type::topic, t, pattern});
    }
    for (const auto& g : o.groups) {
        out.push_back({acl::resource_type::group, g, pattern});
    }
    for (const auto& id : o.transactional_ids) {
        out.push_back({acl::resource_type::transactional_id, id, pattern});
    }
    if (o.cluster) {
        out.push_back({acl::resource_type::cluster, std::string(acl::cluster_name),
                       acl::pattern_type::literal});
    }
    return out;
}

std::set<entry> entries_for(const acls_options& o, const std::set<acl::operation>& ops) {
    std::set<entry> out;
    auto add = [&](const std::vector<std::string>& principals, std::vector<std::string> hosts,
                   acl::permission perm) {
        if (hosts.empty()) {
            hosts.emplace_back(acl::wildcard);
        }
        for (const auto& p : principals) {
            for (const auto& h : hosts) {
                for (auto op : ops) {
                    out.insert({p, h, op, perm});
                }
            }
        }
    };
    add(o.allow_principals, o.allow_hosts, acl::permission::allow);
    add(o.deny_principals, o.deny_hosts, acl::permission::deny);
    return out;
}

// What --add and --remove act on: the resources with their entries, from
// --operation, or from the --producer / --consumer conveniences.
result<resource_acls> requested_acls(const acls_options& o, acl::pattern_type pattern) {
    const auto resources = resources_of(o, pattern);
    resource_acls out;
    using op = acl::operation;
    if (!o.producer && !o.consumer) {
        std::set<op> ops;
        for (const auto& name : o.operations) {
            auto parsed = acl::parse_operation(name);
            if (!parsed || *parsed == op::any) {
                return tool_error("Invalid operation: " + name);
            }
            ops.insert(*parsed);
        }
        if (ops.empty()) {
            ops.insert(op::all);
        }
        for (const auto& r : resources) {
            for (auto wanted : ops) {
                if (!supports(r.type, wanted)) {
                    std::string valid = "ALL";
                    for (auto s : acl::supported_operations(r.type)) {
                        valid += "," + std::string(acl::name_of(s));
                    }
                    return tool_error("ResourceType " + std::string(acl::name_of(r.type)) +
                                      " only supports operations " + valid);
                }
            }
            out[r] = entries_for(o, ops);
        }
        return out;
    }
    for (const auto& r : resources) {
        auto& acls = out[r];
        std::set<op> ops;
        if (o.producer && r.type == acl::resource_type::topic) {
            ops.insert({op::write, op::describe, op::create});
        }
        if (o.producer && r.type == acl::resource_type::transactional_id) {
            ops.insert({op::write, op::describe});
        }
        if (o.consumer && r.type == acl::resource_type::topic) {
            ops.insert({op::read, op::describe});
        }
        if (o.consumer && r.type == acl::resource_type::group) {
            ops.insert(op::read);
        }
        auto more = entries_for(o, ops);
        acls.insert(more.begin(), more.end());
        if (acls.empty()) {
            out.erase(r);
        }
    }
    if (o.producer && o.idempotent) {
        out[{acl::resource_type::cluster, std::string(acl::cluster_name),
             acl::pattern_type::literal}] = entries_for(o, {op::idempotent_write});
    }
    return out;
}

result<net::blocking_target> target(const acls_options& o) {
    return bootstrap_target(o.client, "samsa-acls");
}

std::string error_text(int16_t code, const std::optional<std::string>& message) {
    return message && !message->empty() ? *message : std::string(error_message(error_code(code)));
}

// Every ACL a DescribeAcls filter matches, by resource pattern.
result<resource_acls> describe(const net::blocking_target& to, const acl::acl_binding_filter& f) {
    protocol::describe_acls_request req;
    req.resource_type_filter = int8_t(f.type);
    req.resource_name_filter = f.name;
    req.pattern_type_filter = int8_t(f.pattern);
    req.principal_filter = f.principal;
    req.host_filter = f.host;
    req.operation = int8_t(f.op);
    req.permission_type = int8_t(f.perm);
    auto resp = net::call_blocking<protocol::describe_acls_response>(
        to, req, protocol::describe_acls_request::max_version);
    if (!resp) {
        return resp.err();
    }
    if (resp->error_code != 0) {
        return tool_error(error_text(resp->error_code, resp->error_message));
    }
    resource_acls out;
    for (const auto& r : resp->resources) {
        auto& entries = out[{acl::resource_type(r.resource_type), r.resource_name,
                             acl::pattern_type(r.pattern_type)}];
        for (const auto& a : r.acls) {
            entries.insert({a.principal, a.host, acl::operation(a.operation),
                            acl::permission(a.permission_type)});
        }
    }
    return out;
}

acl::acl_binding_filter filter_of(const resource& r) {
    acl::acl_binding_filter f;
    f.type = r.type;
    f.name = r.name;
    f.pattern = r.pattern;
    return f;
}

bool confirmed(const acls_options& o, const std::string& question) {
    if (o.force) {
        return true;
    }
    std::printf("%s\n", question.c_str());
    std::fflush(stdout);
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y";
}

int add_acls(const acls_options& o, const net::blocking_target& to) {
    auto pattern = acl::parse_pattern_type(o.pattern_type);
    if (!pattern ||
        (*pattern != acl::pattern_type::literal && *pattern != acl::pattern_type::prefixed)) {
        return command_failed("A '--resource-pattern-type' value of '" + o.pattern_type +
                              "' is not valid when adding acls.");
    }
    auto wanted = requested_acls(o, *pattern);
    if (!wanted) {
        return command_failed(wanted.err().message);
    }
    if (wanted->empty() || std::any_of(wanted->begin(), wanted->end(),
                                       [](const auto& kv) { return kv.second.empty(); })) {
        return command_failed(
            "You must specify one of: --allow-principal, --deny-principal when trying to add "
            "ACLs.");
    }
    for (const auto& [r, entries] : *wanted) {
        auto existing = describe(to, filter_of(r));
        if (!existing) {
            return command_failed(existing.err().message);
        }
        const auto& held = (*existing)[r];
        std::set<entry> fresh;
        for (const auto& e : entries) {
            if (held.contains(e)) {
                std::printf("Acl (pattern=%s, entry=%s) already exists.\n", pattern_text(r).c_str(),
                            entry_text(e).c_str());
            } else {
                fresh.insert(e);
            }
        }
        if (fresh.empty()) {
            continue;
        }
        std::printf("Adding ACLs for resource `%s`: \n %s\n\n", pattern_text(r).c_str(),
                    entries_text(fresh).c_str());
        protocol::create_acls_request req;
        for (const auto& e : fresh) {
            auto& c = req.creations.emplace_back();
            c.resource_type = int8_t(r.type);
            c.resource_name = r.name;
            c.resource_pattern_type = int8_t(r.pattern);
            c.principal = e.principal;
            c.host = e.host;
            c.operation = int8_t(e.op);
            c.permission_type = int8_t(e.perm);
        }
        auto resp = net::call_blocking<protocol::create_acls_response>(
            to, req, protocol::create_acls_request::max_version);
        if (!resp) {
            return command_failed(resp.err().message);
        }
        for (const auto& result : resp->results) {
            if (result.error_code != 0) {
                return command_failed(error_text(result.error_code, result.error_message));
            }
        }
    }
    return 0;
}

int remove_acls(const acls_options& o, const net::blocking_target& to) {
    auto pattern = acl::parse_pattern_type(o.pattern_type);
    if (!pattern) {
        return command_failed("Invalid --resource-pattern-type: " + o.pattern_type);
    }
    auto wanted = requested_acls(o, *pattern);
    if (!wanted) {
        return command_failed(wanted.err().message);
    }
    if (wanted->empty() && o.topics.empty() && o.groups.empty() && o.transactional_ids.empty() &&
        !o.cluster) {
        return command_failed(
            "You must provide at least one resource: --topic <topic> or --cluster or --group "
            "<group> or --transactional-id <id>");
    }
    // A resource named without principals: every ACL it has.
    const bool without_entries = o.allow_principals.empty() && o.deny_principals.empty();
    for (const auto& [r, entries] : *wanted) {
        const std::string filter = pattern_text(r);
        const bool all = without_entries || entries.empty();
        if (!confirmed(o, all ? "Are you sure you want to delete all ACLs for resource filter `" +
                                    filter + "`? (y/n)"
                              : "Are you sure you want to remove ACLs: \n " +
                                    entries_text(entries) + "\n from resource filter `" + filter +
                                    "`? (y/n)")) {
            continue;
        }
        protocol::delete_acls_request req;
        auto add_filter = [&req, &r = r](const std::optional<entry>& e) {
            auto& f = req.filters.emplace_back();
            f.resource_type_filter = int8_t(r.type);
            f.resource_name_filter = r.name;
            f.pattern_type_filter = int8_t(r.pattern);
            f.principal_filter = e ? std::optional(e->principal) : std::nullopt;
            f.host_filter = e ? std::optional(e->host) : std::nullopt;
            f.operation = int8_t(e ? e->op : acl::operation::any);
            f.permission_type = int8_t(e ? e->perm : acl::permission::any);
        };
        if (all) {
            add_filter(std::nullopt);
        } else {
            for (const auto& e : entries) {
                add_filter(e);
            }
        }
        auto resp = net::call_blocking<protocol::delete_acls_response>(
            to, req, protocol::delete_acls_request::max_version);
        if (!resp) {
            return command_failed(resp.err().message);
        }
        for (const auto& result : resp->filter_results) {
            if (result.error_code != 0) {
                return command_failed(error_text(result.error_code, result.error_message));
            }
        }
    }
    return 0;
}

void print_acls(const resource_acls& acls) {
    for (const auto& [r, entries] : acls) {
        if (!entries.empty()) {
            std::printf("Current ACLs for resource `%s`:\n%s\n\n", pattern_text(r).c_str(),
                        entries_text(entries).c_str());
        }
    }
}

int list_acls(const acls_options& o, const net::blocking_target& to) {
    auto pattern = acl::parse_pattern_type(o.pattern_type);
    if (!pattern) {
        return command_failed("Invalid --resource-pattern-type: " + o.pattern_type);
    }
    auto resources = resources_of(o, *pattern);
    std::vector<acl::acl_binding_filter> filters;
    for (const auto& r : resources) {
        filters.push_back(filter_of(r));
    }
    if (filters.empty()) {
        filters.emplace_back();  // every ACL
    }
    resource_acls all;
    for (const auto& f : filters) {
        auto found = describe(to, f);
        if (!found) {
            return command_failed(found.err().message);
        }
        for (auto& [r, entries] : *found) {
            all[r].insert(entries.begin(), entries.end());
        }
    }
    if (o.principals.empty()) {
        print_acls(all);
        return 0;
    }
    for (const auto& principal : o.principals) {
        std::printf("ACLs for principal `%s`\n", principal.c_str());
        resource_acls mine;
        for (const auto& [r, entries] : all) {
            for (const auto& e : entries) {
                if (e.principal == principal) {
                    mine[r].insert(e);
                }
            }
        }
        print_acls(mine);
    }
    return 0;
}

int run_acls(const acls_options& o) {
    if (int(o.add) + int(o.remove) + int(o.list) != 1) {
        return command_failed("Command must include exactly one action: --list, --add, --remove.");
    }
    if (o.consumer && (o.topics.empty() || o.groups.empty())) {
        return command_failed("With --consumer you must specify a --topic and a --group");
    }
    if (o.idempotent && !o.producer) {
        return command_failed("--idempotent is only valid with --producer");
    }
    auto to = target(o);
    if (!to) {
        return command_failed(to.err().message);
    }
    if (o.add) {
        return add_acls(o, *to);
    }
    if (o.remove) {
        return remove_acls(o, *to);
    }
    return list_acls(o, *to);
}

}  // namespace

tool_command add_acls_command(CLI::App& app) {
    auto o = std::make_shared<acls_options>();
    auto* cmd = add_verb(app, "acls", "Add, remove and list ACLs (kafka-acls)");
    add_client_options(*cmd, o->client);
    cmd->add_flag("--add", o->add, "Add the ACLs");
    cmd->add_flag("--remove", o->remove, "Remove the ACLs");
    cmd->add_flag("--list", o->list, "List ACLs (of the named resources, or all)");
    cmd->add_option("--topic", o->topics, "A topic (or a prefix, or * for all)");
    cmd->add_option("--group", o->groups, "A consumer group (or a prefix, or * for all)");
    cmd->add_option("--transactional-id", o->transactional_ids,
                    "A transactional id (or a prefix, or * for all)");
    cmd->add_flag("--cluster", o->cluster, "The cluster");
    cmd->add_option("--resource-pattern-type", o->pattern_type,
                    "LITERAL or PREFIXED when adding; also ANY or MATCH when listing or removing");
    cmd->add_option("--allow-principal", o->allow_principals, "Principal allowed, as User:<name>");
    cmd->add_option("--deny-principal", o->deny_principals, "Principal denied, as User:<name>");
    cmd->add_option("--allow-host", o->allow_hosts, "Host the allowed principals use (* for any)");
    cmd->add_option("--deny-host", o->deny_hosts, "Host the denied principals use (* for any)");
    cmd->add_option("--operation", o->operations,
                    "Read, Write, Create, Delete, Alter, Describe, ClusterAction, "
                    "DescribeConfigs, AlterConfigs, IdempotentWrite, All (default All)");
    cmd->add_option("--principal", o->principals, "With --list: only this principal's ACLs");
    cmd->add_flag("--producer", o->producer,
                  "Producer ACLs: WRITE, DESCRIBE, CREATE on topics; WRITE, DESCRIBE on "
                  "transactional ids");
    cmd->add_flag("--consumer", o->consumer,
                  "Consumer ACLs: READ, DESCRIBE on topics, READ on groups");
    cmd->add_flag("--idempotent", o->idempotent,
                  "With --producer: IDEMPOTENT_WRITE on the cluster");
    cmd->add_flag("--force", o->force, "Remove without asking");
    return {cmd, [o] { return run_acls(*o); }};
}

}  // namespace samsa::tools
