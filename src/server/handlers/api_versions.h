#pragma once
// ApiVersions (key 18): the versions of every API this broker serves, derived
// from the handler registry.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler api_versions_handler();

// KIP-511: a request version above what we can parse is answered in version 0
// with UNSUPPORTED_VERSION and the ApiVersions entry alone (as Kafka does), so
// the client can retry with a version both sides know. The connection calls this instead of the
// handler when the version is out of range.
handler_result api_versions_unsupported(request_context& ctx);

}  // namespace samsa::server::handlers
