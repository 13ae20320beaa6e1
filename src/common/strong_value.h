#pragma once
// strong_value: a number that means one thing. Two strong types over the same
// integer do not convert into each other nor into the integer: a Raft offset
// cannot be passed where a Kafka offset is wanted, nor a partition id where a
// node id is (common/kafka_types.h, raft/raft_types.h). `.value()` is the
// explicit way out, at the wire and the disk.
#include <compare>
#include <concepts>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <type_traits>

#include <fmt/format.h>

namespace samsa {

template <typename T, typename Tag>
class strong_value {
  public:
    using value_type = T;
    using tag_type = Tag;
    constexpr strong_value() = default;
    constexpr explicit strong_value(T v) : _v(v) {}
    constexpr T value() const { return _v; }
    constexpr auto operator<=>(const strong_value&) const = default;

  private:
    T _v{};
};

// A strong type logs as its plain number: `epoch=3 offset=17 node=2`.
template <typename S>
concept strong_number = requires(S s) {
    typename S::value_type;
    { s.value() } -> std::same_as<typename S::value_type>;
}
&&std::is_base_of_v<strong_value<typename S::value_type, typename S::tag_type>, S>;

// And streams as its number (test failure messages).
template <strong_number S>
std::ostream& operator<<(std::ostream& os, S v) {
    return os << v.value();
}

}  // namespace samsa

// Every strong type hashes and formats as its number.
template <samsa::strong_number S>
struct std::hash<S> {
    size_t operator()(S v) const { return std::hash<typename S::value_type>{}(v.value()); }
};
template <samsa::strong_number S>
struct fmt::formatter<S> : fmt::formatter<typename S::value_type> {
    auto format(S v, format_context& ctx) const {
        return fmt::formatter<typename S::value_type>::format(v.value(), ctx);
    }
};
