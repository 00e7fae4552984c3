#include "mediagen/http/query.hpp"

#include <limits>

#include "mediagen/core/percent.hpp"

namespace mediagen::http {
namespace {

// ApiError is an aggregate, so a bare integer would convert to either side of the result.
Result<std::int64_t> ok(std::int64_t v) { return Result<std::int64_t>(boost::system::in_place_value, v); }

Message between_message(std::string_view field, std::int64_t min, std::int64_t max) {
  return Message{"validation.between",
                 {{"attribute", std::string(field)}, {"min", std::to_string(min)}, {"max", std::to_string(max)}}};
}

Message min_message(std::string_view field, std::int64_t min) {
  return Message{"validation.min", {{"attribute", std::string(field)}, {"min", std::to_string(min)}}};
}

}  // namespace

// Split on '&' and the first '=' as the bytes came; Boost.URL refuses bytes and escapes clients do
// send, so it only decodes the pieces (core/percent.hpp).
Query Query::parse(std::string_view raw) {
  Query q;
  std::size_t i = 0;
  while (i <= raw.size()) {
    std::size_t end = raw.find('&', i);
    if (end == std::string_view::npos) end = raw.size();
    const std::string_view pair = raw.substr(i, end - i);
    const std::size_t eq = pair.find('=');
    const std::string_view name = pair.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    if (!name.empty()) q.items_.push_back({percent_decode(name, true), percent_decode(value, true)});  // "&&", "=x"
    i = end + 1;
  }
  return q;
}

std::optional<std::string_view> Query::get(std::string_view name) const {
  for (const auto& p : items_) {
    if (p.name == name) return std::string_view(p.value);
  }
  return std::nullopt;
}

std::vector<std::string_view> Query::all(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& p : items_) {
    const std::string_view n = p.name;
    if (n == name || (n.size() == name.size() + 2 && n.starts_with(name) && n.ends_with("[]"))) out.push_back(p.value);
  }
  return out;
}

Result<std::int64_t> parse_integer(std::string_view field, std::string_view text, IntegerBounds bounds) {
  if (text.empty()) return ok(bounds.fallback);
  const auto out_of_range = [&]() -> ApiError {
    if (bounds.max) return ApiError::validation(std::string(field), between_message(field, bounds.min, *bounds.max));
    return ApiError::validation(std::string(field), min_message(field, bounds.min));
  };
  bool negative = false;
  std::string_view digits = text;
  if (digits.front() == '-') {
    negative = true;
    digits.remove_prefix(1);
  }
  const auto not_integer = [&] {
    return ApiError::validation(std::string(field), Message{"validation.integer", {{"attribute", std::string(field)}}});
  };
  if (digits.empty()) return not_integer();
  // The magnitude in unsigned 64 bits, so the most negative value (-2^63) fits as well.
  const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
  std::uint64_t magnitude = 0;
  bool overflow = false;
  for (char c : digits) {
    if (c < '0' || c > '9') return not_integer();
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) overflow = true;
    if (!overflow) magnitude = magnitude * 10 + digit;
  }
  // A number too large for 64 bits is still a number: it is out of range, not malformed.
  if (overflow) {
    if (negative) return out_of_range();
    if (bounds.max) return out_of_range();
    return ApiError::validation(
        std::string(field),
        Message{"validation.max", {{"attribute", std::string(field)},
                                   {"max", std::to_string(std::numeric_limits<std::int64_t>::max())}}});
  }
  const auto value = static_cast<std::int64_t>(negative ? 0 - magnitude : magnitude);  // modular: -2^63 too
  if (value < bounds.min || (bounds.max && value > *bounds.max)) return out_of_range();
  return ok(value);
}

std::optional<ApiError> combined_error(std::initializer_list<const Result<std::int64_t>*> results) {
  std::optional<ApiError> out;
  for (const auto* r : results) {
    if (r->has_value()) continue;
    if (!out) {
      out = r->error();
      continue;
    }
    for (const auto& f : r->error().fields) {
      for (const auto& m : f.messages) out->add_field(f.field, m);
    }
  }
  return out;
}

Result<std::int64_t> integer_param(const Query& query, std::string_view name, IntegerBounds bounds) {
  auto text = query.get(name);
  if (!text) return ok(bounds.fallback);
  return parse_integer(name, *text, bounds);
}

}  // namespace mediagen::http
