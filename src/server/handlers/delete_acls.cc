#include "server/handlers/delete_acls.h"

#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

api_handler delete_acls_handler() {
    using protocol::delete_acls_request;
    using protocol::delete_acls_response;
    return {delete_acls_request::api_key, delete_acls_request::min_version,
            delete_acls_request::max_version,
            &typed_handler<delete_acls_request, delete_acls_response,
                           &forward_acl_change<delete_acls_request>>};
}

}  // namespace samsa::server::handlers
