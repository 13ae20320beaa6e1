#pragma once
// `samsa configs --entity-type broker-loggers`: kafka-configs.sh for a
// broker's log levels (KIP-412), through raw DescribeConfigs and
// IncrementalAlterConfigs calls sent to that broker itself (librdkafka 2.0 has
// no BROKER_LOGGER resource type).
//
//   --describe --entity-type broker-loggers --entity-name 1
//       All configs for broker-logger 1 are:
//         kafka.log=INFO sensitive=false synonyms={}
//   --alter --entity-type broker-loggers --entity-name 1
//       --add-config kafka.log.LogCleaner=DEBUG --delete-config kafka.log
#include <string>
#include <vector>

#include "tools/client_options.h"

namespace samsa::tools {

int describe_broker_loggers(const client_options& opts, const std::string& broker_id);
int alter_broker_loggers(const client_options& opts, const std::string& broker_id,
                         const property_list& sets, const std::vector<std::string>& deletes);

}  // namespace samsa::tools
