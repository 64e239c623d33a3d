#pragma once
// Reading JSON from files (JSON profiles, the recording header) without
// trusting them: nesting is limited before parsing, so a hostile document
// cannot exhaust the stack of the recursive code that walks or destroys it,
// and every number is checked against the type it is read into.

#include <cmath>
#include <cstdint>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/error.h"

namespace swprof {

// Containers (arrays, objects) nested in one another: far more than any
// document swprof writes (its deepest value is in 3).
inline constexpr int kMaxJsonDepth = 64;

// Parses `text`; throws Error for nesting deeper than kMaxJsonDepth, and
// nlohmann::json::exception for a syntax error.
nlohmann::json parse_json_limited(std::string_view text);
nlohmann::json parse_json_limited(std::istream& in);

namespace json_read_detail {

std::string shown(const nlohmann::json& value);  // the value as JSON, cut to a readable length
[[noreturn]] void fail_number(std::string_view field, const std::string& expected, const nlohmann::json& value);

}  // namespace json_read_detail

// `value` read as T: an integer within T's range for an integer T (a
// fraction, a string or 2^64+5 is refused), a finite number for a floating
// point T. Throws Error "field NAME: expected ..., got ...".
template <typename T>
T json_number(const nlohmann::json& value, std::string_view field) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) json_read_detail::fail_number(field, "a number", value);
    const double v = value.get<double>();
    if (!std::isfinite(v) || std::fabs(v) > static_cast<double>(std::numeric_limits<T>::max()))
      json_read_detail::fail_number(field, "a finite number", value);
    return static_cast<T>(v);
  } else {
    const std::string expected = "an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                                 std::to_string(std::numeric_limits<T>::max());
    if (!value.is_number_integer()) json_read_detail::fail_number(field, expected, value);
    if (value.is_number_unsigned()) {
      const uint64_t v = value.get<uint64_t>();
      if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) json_read_detail::fail_number(field, expected, value);
      return static_cast<T>(v);
    }
    const int64_t v = value.get<int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (v < 0 || static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max()))
        json_read_detail::fail_number(field, expected, value);
    } else {
      if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) || v > static_cast<int64_t>(std::numeric_limits<T>::max()))
        json_read_detail::fail_number(field, expected, value);
    }
    return static_cast<T>(v);
  }
}

// The number `object[name]`, or `fallback` when there is no such key.
template <typename T>
T json_number_or(const nlohmann::json& object, const char* name, T fallback) {
  auto it = object.find(name);
  return it == object.end() ? fallback : json_number<T>(*it, name);
}

}  // namespace swprof
