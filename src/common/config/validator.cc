#include "common/config/validator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace samsa::config {

validator::validator(std::string description, check_fn check)
    : _description(std::move(description)), _check(std::move(check)) {}

std::optional<std::string> validator::check(const config_value& v) const {
    if (!_check || is_null(v)) {
        return std::nullopt;
    }
    return _check(v);
}

validator validator::at_least(int64_t min) {
    return validator(fmt::format("[{},...]", min), [min](const config_value& v) {
        bool ok = true;
        if (auto* i = std::get_if<int64_t>(&v)) {
            ok = *i >= min;
        } else if (auto* d = std::get_if<double>(&v)) {
            ok = *d >= double(min);
        }
        return ok ? std::nullopt
                  : std::optional<std::string>(fmt::format("Value must be at least {}", min));
    });
}

validator validator::between(int64_t min, int64_t max) {
    return validator(fmt::format("[{},...,{}]", min, max), [min, max](const config_value& v) {
        std::optional<std::string> reason;
        if (auto* i = std::get_if<int64_t>(&v)) {
            if (*i < min) {
                reason = fmt::format("Value must be at least {}", min);
            } else if (*i > max) {
                reason = fmt::format("Value must be no more than {}", max);
            }
        } else if (auto* d = std::get_if<double>(&v)) {
            if (!(*d >= double(min))) {
                reason = fmt::format("Value must be at least {}", min);
            } else if (*d > double(max)) {
                reason = fmt::format("Value must be no more than {}", max);
            }
        }
        return reason;
    });
}

validator validator::one_of(std::vector<std::string> allowed) {
    std::string desc = fmt::format("[{}]", fmt::join(allowed, ", "));
    return validator(desc, [allowed = std::move(allowed)](const config_value& v) {
        auto* s = std::get_if<std::string>(&v);
        if (s && std::find(allowed.begin(), allowed.end(), *s) != allowed.end()) {
            return std::optional<std::string>();
        }
        return std::optional<std::string>(
            fmt::format("String must be one of: {}", fmt::join(allowed, ", ")));
    });
}

validator validator::one_of_ignoring_case(std::vector<std::string> allowed) {
    std::string desc = fmt::format("(case insensitive) [{}]", fmt::join(allowed, ", "));
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        return s;
    };
    return validator(desc, [allowed = std::move(allowed), lower](const config_value& v) {
        auto* s = std::get_if<std::string>(&v);
        if (s) {
            for (const auto& a : allowed) {
                if (lower(a) == lower(*s)) {
                    return std::optional<std::string>();
                }
            }
        }
        return std::optional<std::string>(
            fmt::format("String must be one of (case insensitive): {}", fmt::join(allowed, ", ")));
    });
}

validator validator::list_of(std::vector<std::string> allowed, bool allow_empty) {
    std::string desc = fmt::format("[{}]", fmt::join(allowed, ", "));
    return validator(desc, [allowed = std::move(allowed), allow_empty](const config_value& v) {
        auto* l = std::get_if<list_value>(&v);
        if (!l) {
            return std::optional<std::string>("Expected a list");
        }
        if (l->empty() && !allow_empty) {
            return std::optional<std::string>("Empty list is not allowed");
        }
        for (const auto& item : *l) {
            if (std::find(allowed.begin(), allowed.end(), item) == allowed.end()) {
                return std::optional<std::string>(
                    fmt::format("'{}' is not allowed; String must be one of: {}", item,
                                fmt::join(allowed, ", ")));
            }
        }
        return std::optional<std::string>();
    });
}

validator validator::non_duplicate_list(bool allow_empty) {
    std::string desc = allow_empty ? "A list of unique, non-empty values"
                                   : "A non-empty list of unique, non-empty values";
    return validator(desc, [allow_empty](const config_value& v) {
        auto* l = std::get_if<list_value>(&v);
        if (!l) {
            return std::optional<std::string>("Expected a list");
        }
        if (l->empty() && !allow_empty) {
            return std::optional<std::string>("Empty list is not allowed");
        }
        std::set<std::string> seen;
        for (const auto& item : *l) {
            if (item.empty()) {
                return std::optional<std::string>("Empty value is not allowed in the list");
            }
            if (!seen.insert(item).second) {
                return std::optional<std::string>(
                    fmt::format("Duplicate value '{}' in the list", item));
            }
        }
        return std::optional<std::string>();
    });
}

validator validator::either(const validator& a, const validator& b) {
    return validator(
        fmt::format("{} or {}", a.description(), b.description()), [a, b](const config_value& v) {
            auto ra = a.check(v);
            if (!ra) {
                return ra;
            }
            auto rb = b.check(v);
            if (!rb) {
                return rb;
            }
            return std::optional<std::string>(
                fmt::format("Value must be {} or {}", a.description(), b.description()));
        });
}

}  // namespace samsa::config
