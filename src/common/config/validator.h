#pragma once
// Validators for config values, after Kafka's ConfigDef.Validator family: a check
// that returns the reason a value is not allowed, and the "Valid Values" text that
// --help-config and the docs print. Null values (keys with a null default) pass
// every validator; raw strings never parse to null.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/config/config_value.h"

namespace samsa::config {

class validator {
  public:
    // nullopt: valid; otherwise the reason, e.g. "Value must be at least 1".
    using check_fn = std::function<std::optional<std::string>(const config_value&)>;

    validator() = default;  // accepts everything; describes itself as ""
    validator(std::string description, check_fn check);

    std::optional<std::string> check(const config_value& v) const;
    const std::string& description() const { return _description; }

    // Kafka's Range.atLeast: "[min,...]".
    static validator at_least(int64_t min);
    // Kafka's Range.between: "[min,...,max]". Works for integers and doubles.
    static validator between(int64_t min, int64_t max);
    // Kafka's ValidString.in (case-sensitive): "[a, b]".
    static validator one_of(std::vector<std::string> allowed);
    // Kafka's CaseInsensitiveValidString.in: "(case insensitive) [a, b]".
    static validator one_of_ignoring_case(std::vector<std::string> allowed);
    // Kafka's ValidList.in: every element one of `allowed`; optionally non-empty.
    static validator list_of(std::vector<std::string> allowed, bool allow_empty = true);
    // Kafka's ValidList.anyNonDuplicateValues: no duplicates, no empty elements,
    // and (unless allow_empty) at least one element.
    static validator non_duplicate_list(bool allow_empty);
    // Any other rule; `description` is what "Valid Values" prints.
    static validator custom(std::string description, check_fn check) {
        return validator(std::move(description), std::move(check));
    }
    // Accepts what either accepts ("[1,...,9] or -1").
    static validator either(const validator& a, const validator& b);

  private:
    std::string _description;
    check_fn _check;
};

}  // namespace samsa::config
