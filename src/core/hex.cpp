#include "mediagen/core/hex.hpp"

namespace mediagen {

void append_hex(std::string& out, std::span<const std::uint8_t> bytes, HexCase letters) {
  const char* digits = letters == HexCase::lower ? "0123456789abcdef" : "0123456789ABCDEF";
  out.reserve(out.size() + 2 * bytes.size());
  for (const std::uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 0xF];
  }
}

std::string to_hex(std::span<const std::uint8_t> bytes, HexCase letters) {
  std::string out;
  append_hex(out, bytes, letters);
  return out;
}

bool from_hex(std::string_view text, std::span<std::uint8_t> out) noexcept {
  if (text.size() != 2 * out.size()) return false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_value(text[2 * i]);
    const int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return true;
}

}  // namespace mediagen
