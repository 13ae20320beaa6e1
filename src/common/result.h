#pragma once
// result<T>: a value or a Kafka error code (with an optional message). Errors
// are values in Samsa; exceptions never cross a module boundary.
#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include "common/error.h"

namespace samsa {

struct error {
    error_code code = error_code::unknown_server_error;
    std::string message;  // empty: use Kafka's default text for the code

    error() = default;
    error(error_code c, std::string m = {}) : code(c), message(std::move(m)) {}  // NOLINT
};

template <typename T>
class [[nodiscard]] result {
  public:
    result(T value) : _v(std::in_place_index<0>, std::move(value)) {}  // NOLINT
    result(error e) : _v(std::in_place_index<1>, std::move(e)) {}      // NOLINT
    result(error_code c) : _v(std::in_place_index<1>, error{c}) {}     // NOLINT

    bool has_value() const { return _v.index() == 0; }
    explicit operator bool() const { return has_value(); }

    T& value() & {
        assert(has_value());
        return std::get<0>(_v);
    }
    const T& value() const& {
        assert(has_value());
        return std::get<0>(_v);
    }
    T&& value() && {
        assert(has_value());
        return std::get<0>(std::move(_v));
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const samsa::error& err() const {
        assert(!has_value());
        return std::get<1>(_v);
    }
    error_code code() const { return has_value() ? error_code::none : err().code; }

  private:
    std::variant<T, samsa::error> _v;
};

// result<void>: success or an error.
template <>
class [[nodiscard]] result<void> {
  public:
    result() = default;
    result(error e) : _err(std::move(e)), _ok(false) {}            // NOLINT
    result(error_code c) : _err(c), _ok(c == error_code::none) {}  // NOLINT

    bool has_value() const { return _ok; }
    explicit operator bool() const { return _ok; }
    const samsa::error& err() const { return _err; }
    error_code code() const { return _ok ? error_code::none : _err.code; }

  private:
    samsa::error _err{error_code::none};
    bool _ok = true;
};

using status = result<void>;

}  // namespace samsa
