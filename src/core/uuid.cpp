#include "mediagen/core/uuid.hpp"

#include <openssl/rand.h>

#include <array>
#include <stdexcept>

#include "mediagen/core/ascii.hpp"
#include "mediagen/core/hex.hpp"

namespace mediagen {

bool is_uuid(std::string_view text) noexcept {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (hex_value(c) < 0) {
      return false;
    }
  }
  return true;
}

namespace {

std::array<std::uint8_t, 16> random_bytes() {
  std::array<std::uint8_t, 16> b{};
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) throw std::runtime_error("no randomness for a uuid");
  return b;
}

std::string formatted(std::array<std::uint8_t, 16>& b, unsigned version) {
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | (version << 4));
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
  std::string out = to_hex(b);
  for (const std::size_t dash : {8, 13, 18, 23}) out.insert(dash, 1, '-');
  return out;
}

}  // namespace

std::string random_uuid() {
  auto b = random_bytes();
  return formatted(b, 4);
}

std::string time_ordered_uuid(std::chrono::system_clock::time_point at) {
  auto b = random_bytes();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
  const auto unix_ms = static_cast<std::uint64_t>(ms < 0 ? 0 : ms);
  for (int i = 0; i < 6; ++i) b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(unix_ms >> (40 - 8 * i));
  return formatted(b, 7);
}

std::string time_ordered_uuid() { return time_ordered_uuid(std::chrono::system_clock::now()); }

std::string lowercase_id(std::string_view text) {
  return ascii_lower(text);
}

}  // namespace mediagen
