#pragma once
// Kafka's StandardAuthorizer decision (KIP-801, the ACL rules of KIP-11 and
// KIP-290), over the ACLs in the metadata image:
//
//   * a super user (super.users) may do anything;
//   * the ACLs that apply to a resource are its LITERAL name, the LITERAL
//     wildcard "*", and every PREFIXED pattern the name starts with;
//   * of those, an entry applies to the principal or to "User:*", from its
//     host or "*", for the operation or ALL; an ALLOW of READ, WRITE, DELETE
//     or ALTER also allows DESCRIBE, an ALLOW of ALTER_CONFIGS also
//     DESCRIBE_CONFIGS (a DENY implies nothing);
//   * any applicable DENY denies; otherwise any applicable ALLOW allows;
//   * a resource with no ACLs at all is allowed only with
//     allow.everyone.if.no.acl.found; one whose ACLs all name others is denied.
#include <array>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "security/acl/acl.h"

namespace samsa::security::acl {

struct authorizer_config {
    // authorizer.class.name names StandardAuthorizer; otherwise nothing is
    // checked (and the ACL APIs answer SECURITY_DISABLED), as in Kafka.
    bool enabled = false;
    std::set<std::string, std::less<>> super_users;  // "User:admin"
    bool allow_everyone_if_no_acl_found = false;
};

// Who is asking: the connection's principal ("User:alice", "User:ANONYMOUS")
// and the client's address.
struct requester {
    std::string_view principal;
    std::string_view host;
};

// The ACLs by resource type, as the authorizer scans them.
class acl_cache {
  public:
    void add(const acl_binding& b);
    void remove(const acl_binding& b);
    const std::vector<acl_binding>& of_type(resource_type t) const;
    size_t size() const;

  private:
    std::array<std::vector<acl_binding>, 8> _by_type;
};

bool authorize(const authorizer_config& cfg, const acl_cache& acls, requester who, operation op,
               resource_type type, std::string_view name);

// Kafka's authorizeByResourceType (KIP-679): whether `op` is allowed on at
// least one resource of `type` (an idempotent producer needs WRITE on some
// topic). An ALLOW that no DENY of the same pattern cancels is enough.
bool authorize_any(const authorizer_config& cfg, const acl_cache& acls, requester who, operation op,
                   resource_type type);

}  // namespace samsa::security::acl
