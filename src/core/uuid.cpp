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

std::string random_uuid() {
  std::array<std::uint8_t, 16> b{};
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) throw std::runtime_error("no randomness for a uuid");
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  std::string out = to_hex(b);
  for (const std::size_t dash : {8, 13, 18, 23}) out.insert(dash, 1, '-');
  return out;
}

std::string lowercase_id(std::string_view text) {
  return ascii_lower(text);
}

}  // namespace mediagen
