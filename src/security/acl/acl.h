#pragma once
// Kafka's ACL model (KIP-11, prefixed patterns KIP-290): an ACL binds a
// resource pattern (type, name, LITERAL or PREFIXED) to an entry (principal,
// host, operation, ALLOW or DENY). The enums carry Kafka's wire ids, as
// CreateAcls, DescribeAcls, DeleteAcls and AccessControlEntryRecord send
// them. A filter (DescribeAcls, DeleteAcls) matches bindings; ANY and null
// fields match everything, and the MATCH pattern type matches every pattern
// that would apply to the named resource.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace samsa::security::acl {

enum class resource_type : int8_t {
    unknown = 0,
    any = 1,
    topic = 2,
    group = 3,
    cluster = 4,
    transactional_id = 5,
    delegation_token = 6,
    user = 7,
};

enum class pattern_type : int8_t { unknown = 0, any = 1, match = 2, literal = 3, prefixed = 4 };

enum class operation : int8_t {
    unknown = 0,
    any = 1,
    all = 2,
    read = 3,
    write = 4,
    create = 5,
    delete_ = 6,
    alter = 7,
    describe = 8,
    cluster_action = 9,
    describe_configs = 10,
    alter_configs = 11,
    idempotent_write = 12,
    create_tokens = 13,
    describe_tokens = 14,
};

enum class permission : int8_t { unknown = 0, any = 1, deny = 2, allow = 3 };

// The one name a CLUSTER resource has.
inline constexpr std::string_view cluster_name = "kafka-cluster";
// A LITERAL name, a principal ("User:*") or a host that matches every one.
inline constexpr std::string_view wildcard = "*";

struct acl_binding {
    resource_type type = resource_type::unknown;
    std::string name;
    pattern_type pattern = pattern_type::literal;
    std::string principal;  // "User:alice"
    std::string host;       // "*" or an address
    operation op = operation::unknown;
    permission perm = permission::unknown;
    auto operator<=>(const acl_binding&) const = default;
};

struct acl_binding_filter {
    resource_type type = resource_type::any;
    std::optional<std::string> name;
    pattern_type pattern = pattern_type::any;
    std::optional<std::string> principal;
    std::optional<std::string> host;
    operation op = operation::any;
    permission perm = permission::any;

    bool matches(const acl_binding& b) const;
    // Whether a field names a value Kafka does not know (UNKNOWN): such a
    // filter is refused rather than matched.
    bool pattern_is_unknown() const;
    bool entry_is_unknown() const;
};

// Kafka's enum names, as kafka-acls prints them (TOPIC, READ, ALLOW,
// LITERAL); parsing also takes its Pascal-case forms (Topic, ClusterAction).
std::string_view name_of(resource_type t);
std::string_view name_of(pattern_type p);
std::string_view name_of(operation o);
std::string_view name_of(permission p);
std::optional<resource_type> parse_resource_type(std::string_view s);
std::optional<pattern_type> parse_pattern_type(std::string_view s);
std::optional<operation> parse_operation(std::string_view s);

// The operations a resource type has (Kafka's AclEntry.supportedOperations;
// ALL is not among them): what an ACL of that type may name besides ALL, and
// what KIP-430's authorized-operations bit fields report.
const std::vector<operation>& supported_operations(resource_type t);

// Kafka's validation of a new ACL (the broker's and AclControlManager's),
// with their messages: nullopt when it is acceptable.
std::optional<std::string> invalid_new_acl(const acl_binding& b);

}  // namespace samsa::security::acl
