#pragma once
// The admin API's writes, served only with
// metrics.listener.admin.writes.enable=true (docs/metrics.md, "Writes"):
//
//   POST   /v1/topics                  {"name", "partitions", "replication_factor",
//                                       "configs": {...}}        CreateTopics
//   DELETE /v1/topics/<name>                                     DeleteTopics
//   POST   /v1/groups/<group>/offsets  {"topic", "partitions": [...],
//                                       "to": "earliest" | "latest" | <offset>}
//                                      ListOffsets, then OffsetCommit as an
//                                      admin (generation -1): the group must be
//                                      Empty, as kafka-consumer-groups
//                                      --reset-offsets requires
//   PUT    /v1/loggers/<logger>        {"level": "DEBUG"}  IncrementalAlterConfigs
//                                      on this broker's BROKER_LOGGER resource
//
// Each runs as the Kafka request it stands for, through this broker's own
// handler (server/http/local_call.h), so it is validated and authorized
// exactly as that request: with an authorizer the caller must sign in with
// HTTP Basic credentials of a SASL user (server/http/basic_auth.h), and the
// ACLs of User:<name> decide; without one, anyone who reaches the listener
// may write, as on a Kafka listener without an authorizer.
//
// Cross-site requests from a browser cannot reach them: a body must be
// application/json and DELETE is not a simple method, so a browser sends
// neither to another origin without a CORS preflight, which is never
// answered.
#include <map>
#include <string>
#include <string_view>

#include "server/http/http_listener.h"
#include "server/http/local_call.h"

namespace samsa::server::http {

struct admin_writes {
    bool enabled = false;     // metrics.listener.admin.writes.enable
    bool authorizer = false;  // authorizer.class.name is set
    // The PLAIN users of this broker's SASL listeners, for sign-in.
    std::map<std::string, std::string> plain_users;
    local_target target;
};

http_response create_topic(const admin_writes& w, const http_request& req);
http_response delete_topic(const admin_writes& w, const http_request& req, std::string_view name);
// `rest`: the path after /v1/groups/, "<group>/offsets".
http_response reset_group_offsets(const admin_writes& w, const http_request& req,
                                  std::string_view rest);
http_response set_logger_level(const admin_writes& w, const http_request& req,
                               std::string_view logger);

// The HTTP status of a Kafka error in an answer (200 for none).
int http_status_of(error_code ec);

}  // namespace samsa::server::http
