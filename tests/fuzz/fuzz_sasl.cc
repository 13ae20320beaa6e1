// libFuzzer target: what a SASL listener reads from outside. The first byte
// picks the input:
//   0  a sasl.jaas.config value (the properties file, an operator's typo)
//   1  a SASL/PLAIN token from a client (authzid NUL authcid NUL password),
//      against a fixed user list, then a second token out of turn
//   2  a SCRAM-SHA-256 exchange: client-first NUL client-final, against one
//      user (alice) and a fixed server nonce, then a token out of turn
//   3  base64 as SCRAM messages carry it
//   4  what a SASL listener answers this node's SCRAM-SHA-256 login
//      (sasl_client): "r=<its nonce>" + server-first rest NUL server-final
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "security/sasl/jaas_config.h"
#include "security/sasl/plain_server.h"
#include "security/sasl/sasl_client.h"
#include "security/sasl/scram.h"
#include "security/sasl/scram_server.h"

using namespace samsa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) {
        return 0;
    }
    const bytes_view body(data + 1, size - 1);
    switch (data[0] % 5) {
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
        case 2: {
            using namespace security::sasl;
            static const scram_credential alice = [] {
                const bytes salt{'s', 'a', 'l', 't', '1', '2', '3', '4'};
                return scram_credential_from_salted(
                    scram_mechanism::sha256, salt,
                    scram_salted_password(scram_mechanism::sha256, "alice-secret", salt, 4096),
                    4096);
            }();
            scram_server s(
                scram_mechanism::sha256,
                [](const std::string& user) -> std::optional<scram_credential> {
                    if (user == "alice") {
                        return alice;
                    }
                    return std::nullopt;
                },
                "fuzznonce");
            const std::string_view all = as_string_view(body);
            const auto nul = all.find('\0');
            const auto first = all.substr(0, nul);
            const auto final =
                nul == std::string_view::npos ? std::string_view() : all.substr(nul + 1);
            if (s.evaluate(as_bytes_view(first))) {
                (void)s.evaluate(as_bytes_view(final));
            }
            (void)s.evaluate(as_bytes_view(final));
            break;
        }
        case 3:
            (void)security::sasl::base64_decode(as_string_view(body));
            break;
        case 4: {
            auto client = security::sasl::make_sasl_client({"SCRAM-SHA-256", "alice", "secret"});
            auto first = (*client)->next({});
            // The server's first message must carry the client's nonce: the
            // input continues it, so the exchange gets past that check.
            const std::string_view sent = as_string_view(*first);
            const std::string nonce(sent.substr(sent.find("r=")));
            const std::string_view all = as_string_view(body);
            const auto nul = all.find('\0');
            const std::string server_first = nonce + std::string(all.substr(0, nul));
            const auto server_final =
                nul == std::string_view::npos ? std::string_view() : all.substr(nul + 1);
            if ((*client)->next(as_bytes_view(server_first))) {
                (void)(*client)->next(as_bytes_view(server_final));
            }
            (void)(*client)->next(as_bytes_view(server_final));
            break;
        }
    }
    return 0;
}
