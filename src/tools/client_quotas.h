#pragma once
// `samsa configs --entity-type clients|users`: kafka-configs.sh for client
// quotas (KIP-546), through raw DescribeClientQuotas and AlterClientQuotas
// calls (librdkafka 2.0 has neither).
//
//   --describe --entity-type clients [--entity-name c1 | --entity-default]
//       Quota configs for client-id 'c1' are producer_byte_rate=1048576.0
//   --alter --entity-type users --entity-name alice
//       --add-config producer_byte_rate=1048576,consumer_byte_rate=2097152
//       --delete-config consumer_byte_rate
//
// A described entity is matched exactly (the filter is strict, as
// kafka-configs.sh asks); values print as Java prints a double.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/client_options.h"

namespace samsa::tools {

// One entity type ("user", "client-id") and its name; nullopt names the
// default, and no name at all (describe only) any entity of the type.
struct quota_component {
    std::string type;
    std::optional<std::string> name;
    bool any = false;
};

// Whether `key` is a client quota key (it goes to the quotas, not to SCRAM).
bool is_client_quota_key(const std::string& key);

int describe_client_quotas(const client_options& opts, const std::vector<quota_component>& of);
int alter_client_quotas(const client_options& opts, const std::vector<quota_component>& entity,
                        const property_list& adds, const std::vector<std::string>& deletes);

// Java's Double.toString, as kafka-configs.sh prints quota values:
// 1048576.0, 1.048576E7.
std::string java_double(double v);

}  // namespace samsa::tools
