#pragma once
// A JSON answer of the admin API.
#include <nlohmann/json.hpp>

#include "server/http/http_listener.h"

namespace samsa::server::http {

inline http_response json_response(int status, const nlohmann::json& j) {
    // Bytes that are not UTF-8 (a rack, a host) come out replaced, not thrown.
    return {status,
            "application/json",
            j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
            {}};
}

}  // namespace samsa::server::http
