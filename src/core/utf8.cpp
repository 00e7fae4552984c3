#include "mediagen/core/utf8.hpp"

#include <cstring>

namespace mediagen {
namespace {

constexpr bool is_continuation(unsigned char b) noexcept { return (b & 0xC0U) == 0x80U; }

// Eight bytes at once: the common case of ASCII runs.
bool all_ascii8(const unsigned char* p) noexcept {
  unsigned long long v;
  std::memcpy(&v, p, sizeof v);
  return (v & 0x8080808080808080ULL) == 0;
}

}  // namespace

bool is_valid_utf8(std::string_view text) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && all_ascii8(p + i)) {
      i += 8;
      continue;
    }
    const unsigned char b0 = p[i];
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    if (b0 >= 0xC2 && b0 <= 0xDF) {  // 2 bytes; C0 and C1 would be overlong
      if (i + 1 >= n || !is_continuation(p[i + 1])) return false;
      i += 2;
      continue;
    }
    if (b0 >= 0xE0 && b0 <= 0xEF) {  // 3 bytes
      if (i + 2 >= n) return false;
      const unsigned char b1 = p[i + 1];
      if (b0 == 0xE0 && (b1 < 0xA0 || b1 > 0xBF)) return false;       // overlong
      if (b0 == 0xED && (b1 < 0x80 || b1 > 0x9F)) return false;       // surrogates
      if (!is_continuation(b1) || !is_continuation(p[i + 2])) return false;
      i += 3;
      continue;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {  // 4 bytes
      if (i + 3 >= n) return false;
      const unsigned char b1 = p[i + 1];
      if (b0 == 0xF0 && (b1 < 0x90 || b1 > 0xBF)) return false;       // overlong
      if (b0 == 0xF4 && (b1 < 0x80 || b1 > 0x8F)) return false;       // above U+10FFFF
      if (!is_continuation(b1) || !is_continuation(p[i + 2]) || !is_continuation(p[i + 3])) return false;
      i += 4;
      continue;
    }
    return false;  // stray continuation, C0/C1, F5..FF (5- and 6-byte forms, beyond U+10FFFF)
  }
  return true;
}

}  // namespace mediagen
