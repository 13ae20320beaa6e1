// libFuzzer target: a server.properties file as the broker reads it at start:
// parsed, then validated into a broker configuration (every key's type and
// validator, listeners, roles, quorum voters).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/config/broker_config.h"
#include "common/config/properties.h"

using namespace samsa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto parsed =
        config::parse_properties(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!parsed) {
        return 0;
    }
    (void)config::make_broker_config(*parsed, {});
    return 0;
}
