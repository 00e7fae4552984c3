#pragma once
// The query string of a request: decoded name/value pairs, and the checked integer parameters
// (page, per_page, ...) whose out-of-range values are a 422 naming the parameter, never clamped.
//
// Decoding follows HTML forms: '+' is a space, %XX a byte; a malformed escape stays as written.
// "t[]=1&t[]=2" keeps the name "t[]"; all("t") returns the values of both "t" and "t[]".
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/api_error.hpp"

namespace mediagen::http {

struct QueryParam {
  std::string name;
  std::string value;
};

class Query {
 public:
  Query() = default;
  static Query parse(std::string_view raw);

  // The first value of `name`; nullopt when absent.
  std::optional<std::string_view> get(std::string_view name) const;
  // Every value of `name` and of `name[]`, in order.
  std::vector<std::string_view> all(std::string_view name) const;
  bool has(std::string_view name) const { return get(name).has_value(); }
  const std::vector<QueryParam>& items() const { return items_; }

 private:
  std::vector<QueryParam> items_;
};

struct IntegerBounds {
  std::int64_t fallback;               // the value when the parameter is absent or empty
  std::int64_t min;
  std::optional<std::int64_t> max;     // nullopt: no ceiling
};

// A decimal integer parameter ("12"; no sign, no fraction, no spaces) within its bounds.
// Absent or empty: the fallback. Otherwise 422 with `name` in errors: validation.integer when it
// is not an integer, validation.between / validation.min when it is out of range.
Result<std::int64_t> integer_param(const Query& query, std::string_view name, IntegerBounds bounds);

// Several parameters checked together: nullopt when all passed, otherwise one 422 naming every
// failed parameter.
std::optional<ApiError> combined_error(std::initializer_list<const Result<std::int64_t>*> results);

// The same check for one raw value, for callers that read the value themselves.
Result<std::int64_t> parse_integer(std::string_view field, std::string_view text, IntegerBounds bounds);

}  // namespace mediagen::http
