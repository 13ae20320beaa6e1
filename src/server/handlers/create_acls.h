#pragma once
// CreateAcls (key 30, v0-3): adds ACLs through the controller
// (metadata/acl_changes.h). The principal needs ALTER on the cluster; without
// an authorizer every item answers SECURITY_DISABLED, as Kafka's AclApis do.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler create_acls_handler();

}  // namespace samsa::server::handlers
