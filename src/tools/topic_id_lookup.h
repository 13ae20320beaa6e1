#pragma once
// Topic ids for `samsa topics --describe`.
//
// Why this exists: librdkafka 2.0.2 (Debian's) does not expose topic ids
// (rd_kafka_DescribeTopics arrived in 2.3), yet `kafka-topics.sh --describe`
// prints "TopicId: ...". Until the client library offers it, this sends the one
// request that carries them — Metadata v12 for the named topics — over a
// connection to a bootstrap broker (net/blocking_call.h), with the verb's
// --command-config TLS/SASL settings. It is best effort: any failure (old
// broker, timeout) yields no ids, and the describe output then omits TopicId
// as Kafka does for a zero id.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "security/client_security.h"

namespace samsa::tools {

// topic name -> id (Kafka's base64 form); topics without an id are absent.
// `security`: null for plaintext.
std::map<std::string, std::string> lookup_topic_ids(
    const std::string& bootstrap_servers, const std::vector<std::string>& topics,
    std::chrono::milliseconds timeout,
    std::shared_ptr<const security::client_security> security = nullptr);

}  // namespace samsa::tools
