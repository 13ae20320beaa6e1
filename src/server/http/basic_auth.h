#pragma once
// HTTP Basic sign-in (RFC 7617) for the admin API's writes: the caller names
// a SASL user of this cluster and its password, and the writes then run as
// that user's principal, User:<name>, as a SASL client's requests do.
// A password is checked against the user's SCRAM credentials in the
// metadata (UserScramCredentialRecord: the salted password's StoredKey,
// never the password itself) or the PLAIN users of a SASL listener's JAAS
// config.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace samsa::metadata {
struct metadata_image;
}

namespace samsa::server::http {

struct basic_credentials {
    std::string user;
    std::string password;
};

// "Basic <base64(user:password)>"; nullopt for any other header (another
// scheme, bad base64, no colon, an empty user).
std::optional<basic_credentials> parse_basic_authorization(std::string_view header);

// Whether the password is the user's, by any SCRAM mechanism it has or as a
// PLAIN user. Compares in constant time.
bool password_matches(const metadata::metadata_image& image,
                      const std::map<std::string, std::string>& plain_users,
                      const basic_credentials& who);

}  // namespace samsa::server::http
