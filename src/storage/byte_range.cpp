#include "byte_range.hpp"

#include <algorithm>
#include <limits>

#include "mediagen/core/ascii.hpp"

namespace mediagen::storage {
namespace {

constexpr std::uint64_t kHuge = std::numeric_limits<std::uint64_t>::max();

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Decimal digits only; a value beyond 64 bits saturates (it is past any end all the same).
std::optional<std::uint64_t> parse_position(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    v = v > (kHuge - digit) / 10 ? kHuge : v * 10 + digit;
  }
  return v;
}

}  // namespace

RangeDecision decide_range(std::optional<std::string_view> range_header, std::uint64_t size) {
  if (!range_header) return WholeFile{};
  const std::string_view header = trim(*range_header);
  const std::size_t eq = header.find('=');
  if (eq == std::string_view::npos || !iequals_ascii(trim(header.substr(0, eq)), "bytes")) return WholeFile{};

  // The list may hold empty elements ("bytes=0-1,"); they do not count as ranges.
  std::string_view spec;
  int ranges = 0;
  std::string_view rest = header.substr(eq + 1);
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view element = trim(rest.substr(0, comma));
    if (!element.empty()) {
      spec = element;
      ++ranges;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (ranges != 1) return WholeFile{};

  const std::size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return WholeFile{};
  const std::string_view first_text = spec.substr(0, dash);
  const std::string_view last_text = spec.substr(dash + 1);

  if (first_text.empty()) {  // "-n": the last n bytes
    const auto suffix = parse_position(last_text);
    if (!suffix) return WholeFile{};
    if (*suffix == 0 || size == 0) return Unsatisfiable{};
    return ByteRange{size - std::min(*suffix, size), size - 1};
  }
  const auto first = parse_position(first_text);
  if (!first) return WholeFile{};
  std::uint64_t last = kHuge;
  if (!last_text.empty()) {
    const auto parsed = parse_position(last_text);
    if (!parsed || *parsed < *first) return WholeFile{};  // an invalid range: the header is ignored
    last = *parsed;
  }
  if (*first >= size) return Unsatisfiable{};
  return ByteRange{*first, std::min(last, size - 1)};
}

}  // namespace mediagen::storage
