#pragma once
// DeleteAcls (key 31, v0-3): removes the ACLs each filter matches through the controller
// (metadata/acl_changes.h). The principal needs ALTER on the cluster; without
// an authorizer every item answers SECURITY_DISABLED, as Kafka's AclApis do.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler delete_acls_handler();

}  // namespace samsa::server::handlers
