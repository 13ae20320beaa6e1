#include "server/handlers/create_acls.h"

#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

api_handler create_acls_handler() {
    using protocol::create_acls_request;
    using protocol::create_acls_response;
    return {create_acls_request::api_key, create_acls_request::min_version,
            create_acls_request::max_version,
            &typed_handler<create_acls_request, create_acls_response,
                           &forward_acl_change<create_acls_request>>};
}

}  // namespace samsa::server::handlers
