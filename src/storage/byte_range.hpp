#pragma once
// The Range header of a download (RFC 9110 14.2), for one representation of a known size.
// Decisions: one byte range is served as 206; several ranges get the whole file (200) rather
// than multipart/byteranges; a header that does not parse, or names another unit, is ignored
// (200), as the RFC allows; a range that starts past the end, or an empty suffix, is 416.
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace mediagen::storage {

struct WholeFile {
  friend bool operator==(const WholeFile&, const WholeFile&) = default;
};
struct ByteRange {
  std::uint64_t first;  // inclusive
  std::uint64_t last;   // inclusive, < size
  std::uint64_t length() const { return last - first + 1; }
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};
struct Unsatisfiable {
  friend bool operator==(const Unsatisfiable&, const Unsatisfiable&) = default;
};

using RangeDecision = std::variant<WholeFile, ByteRange, Unsatisfiable>;

RangeDecision decide_range(std::optional<std::string_view> range_header, std::uint64_t size);

}  // namespace mediagen::storage
