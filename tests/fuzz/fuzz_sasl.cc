// libFuzzer target: what a SASL listener reads from outside. The first byte
// picks the input:
//   0  a sasl.jaas.config value (the properties file, an operator's typo)
//   1  a SASL/PLAIN token from a client (authzid NUL authcid NUL password),
//      against a fixed user list, then a second token out of turn
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "security/sasl/jaas_config.h"
#include "security/sasl/plain_server.h"

using namespace samsa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) {
        return 0;
    }
    const bytes_view body(data + 1, size - 1);
    switch (data[0] % 2) {
        case 0:
            (void)security::sasl::parse_jaas_config(as_string_view(body));
            break;
        case 1: {
            static const std::map<std::string, std::string> users{{"alice", "alice-secret"},
                                                                  {"admin", ""}};
            security::sasl::plain_server s(users);
            (void)s.evaluate(body);
            (void)s.evaluate(body);
            break;
        }
    }
    return 0;
}
