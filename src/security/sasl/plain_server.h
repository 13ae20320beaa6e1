#pragma once
// PLAIN (RFC 4616) on the broker, as Kafka's PlainSaslServer: one client
// token `authzid NUL authcid NUL password`, checked against the users of the
// listener's JAAS config (user_<name>="<password>"). The authorization id
// must be empty or the user itself.
#include <map>
#include <string>

#include "security/sasl/sasl_server.h"

namespace samsa::security::sasl {

class plain_server final : public sasl_server {
  public:
    explicit plain_server(const std::map<std::string, std::string>& users) : _users(users) {}
    result<sasl_step> evaluate(bytes_view client_token) override;

  private:
    const std::map<std::string, std::string>& _users;
    bool _done = false;
};

}  // namespace samsa::security::sasl
