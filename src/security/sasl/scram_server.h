#pragma once
// SCRAM on the broker (RFC 5802, as Kafka's ScramSaslServer): two client
// tokens, two answers.
//
//   client-first   n,[a=<authzid>],n=<user>,r=<client nonce>[,<ext>=<v>...]
//   server-first   r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
//   client-final   c=<base64 gs2 header>,r=<...nonce>[,...],p=<base64 proof>
//   server-final   v=<base64 server signature>
//
// The proof is checked against the user's StoredKey; the server signature
// proves to the client that the broker knew its ServerKey. Channel binding is
// refused (gs2 flag "n" only, as Kafka), and so is the tokenauth extension
// (delegation tokens are not served). Every failure of the exchange is
// SASL_AUTHENTICATION_FAILED with Kafka's message, which tells the client no
// more than that the credentials did not do.
#include <functional>
#include <optional>
#include <string>

#include "security/sasl/sasl_server.h"
#include "security/sasl/scram.h"

namespace samsa::security::sasl {

// The credential of `user` for the exchange's mechanism, if it has one.
using scram_lookup = std::function<std::optional<scram_credential>(const std::string& user)>;

class scram_server final : public sasl_server {
  public:
    // `server_nonce` is random unless a test fixes it; `reauthentication`
    // (KIP-368) is named in the failure message, as Kafka's authenticator does.
    scram_server(scram_mechanism mechanism, scram_lookup lookup,
                 std::optional<std::string> server_nonce = std::nullopt,
                 bool reauthentication = false);
    result<sasl_step> evaluate(bytes_view client_token) override;

  private:
    result<sasl_step> client_first(std::string_view message);
    result<sasl_step> client_final(std::string_view message);
    error failed() const;

    enum class phase { client_first, client_final, done };
    bool _reauthentication = false;
    const scram_mechanism _mechanism;
    const scram_lookup _lookup;
    phase _phase = phase::client_first;
    std::string _server_nonce;
    std::string _nonce;  // client's then server's
    std::string _user;
    std::string _client_first_bare;
    std::string _server_first;
    std::optional<scram_credential> _credential;
};

}  // namespace samsa::security::sasl
