#pragma once
// ssl.principal.mapping.rules: how a client certificate's subject (RFC 2253,
// "CN=writer,OU=apps,O=example") becomes the principal's name, as Kafka's
// SslPrincipalMapper reads them.
//
//   DEFAULT                         the subject as it is
//   RULE:<pattern>/<replacement>/   when the whole subject matches the
//   RULE:<pattern>/<replacement>/L  regular expression, every match is
//   RULE:<pattern>/<replacement>/U  replaced ($1... name its groups), then
//                                   lower- (L) or upper-cased (U)
//
// Rules are separated by commas (with optional spaces) and tried in order; the
// first that applies names the principal. A subject no rule applies to has no
// principal, and its connection is refused. `\/` writes a slash in a pattern
// or a replacement. Example:
//   RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=([^,]*).*$/$1/L,DEFAULT
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace samsa::config {

class principal_mapping_rules {
  public:
    // INVALID_CONFIG naming the rule that cannot be read.
    static result<principal_mapping_rules> parse(std::string_view text);
    // The rules "DEFAULT": every subject as it is.
    principal_mapping_rules();

    // The principal name for `subject`, or nullopt when no rule applies.
    std::optional<std::string> map(const std::string& subject) const;

    // Longer subjects are not matched against a RULE (the caller refuses
    // them): the regex engine recurses per character, and a subject comes
    // from a client's certificate.
    static constexpr size_t k_max_subject = 4096;
    bool only_default() const;

  private:
    struct rule {
        bool is_default = false;
        std::string pattern_text;
        std::shared_ptr<const std::regex> pattern;
        std::string replacement;  // in std::regex_replace's $n format
        char to_case = 0;         // 'L', 'U' or 0
    };
    std::vector<rule> _rules;
};

}  // namespace samsa::config
