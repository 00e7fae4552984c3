#pragma once
// Hexadecimal digits: two per byte, most significant first.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mediagen {

enum class HexCase { lower, upper };

// Appends the digits of `bytes` to `out`.
void append_hex(std::string& out, std::span<const std::uint8_t> bytes, HexCase letters = HexCase::lower);
std::string to_hex(std::span<const std::uint8_t> bytes, HexCase letters = HexCase::lower);

// The value of one digit of either case, or -1.
constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Digits 0-9 and a-f only: the one spelling of what this program writes itself.
constexpr bool is_lower_hex(std::string_view text) noexcept {
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Fills `out` from exactly 2 * out.size() digits of either case; false (out unspecified) when
// the length or a digit is wrong.
bool from_hex(std::string_view text, std::span<std::uint8_t> out) noexcept;

}  // namespace mediagen
