#include "mediagen/core/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace mediagen {
namespace {

// Eight bytes at once: the common case of ASCII runs.
bool all_ascii8(const unsigned char* p) noexcept {
  unsigned long long v;
  std::memcpy(&v, p, sizeof v);
  return (v & 0x8080808080808080ULL) == 0;
}

// The one decoder of sequence starts: 0 when p[0..n) does not start a valid sequence.
std::size_t sequence_length(const unsigned char* p, std::size_t n) noexcept {
  const unsigned char b0 = p[0];
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) {  // 2 bytes; C0 and C1 would be overlong
    return n >= 2 && is_utf8_continuation(p[1]) ? 2 : 0;
  }
  if (b0 >= 0xE0 && b0 <= 0xEF) {  // 3 bytes
    if (n < 3) return 0;
    const unsigned char b1 = p[1];
    if (b0 == 0xE0 && (b1 < 0xA0 || b1 > 0xBF)) return 0;  // overlong
    if (b0 == 0xED && (b1 < 0x80 || b1 > 0x9F)) return 0;  // surrogates
    return is_utf8_continuation(b1) && is_utf8_continuation(p[2]) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {  // 4 bytes
    if (n < 4) return 0;
    const unsigned char b1 = p[1];
    if (b0 == 0xF0 && (b1 < 0x90 || b1 > 0xBF)) return 0;  // overlong
    if (b0 == 0xF4 && (b1 < 0x80 || b1 > 0x8F)) return 0;  // above U+10FFFF
    return is_utf8_continuation(b1) && is_utf8_continuation(p[2]) && is_utf8_continuation(p[3]) ? 4 : 0;
  }
  return 0;  // stray continuation, C0/C1, F5..FF (5- and 6-byte forms, beyond U+10FFFF)
}

}  // namespace

std::size_t utf8_sequence_length(std::string_view text) noexcept {
  return text.empty() ? 0 : sequence_length(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

std::optional<CodePoint> decode_utf8(std::string_view text) noexcept {
  const std::size_t length = utf8_sequence_length(text);
  if (length == 0) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  // The lead keeps 7, 5, 4 or 3 value bits; each continuation byte adds 6.
  char32_t value = p[0] & (length == 1 ? 0x7FU : 0x7FU >> length);
  for (std::size_t i = 1; i < length; ++i) value = (value << 6) | (p[i] & 0x3FU);
  return CodePoint{value, length};
}

std::size_t count_code_points(std::string_view text) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t continuation = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, sizeof word);
    // A continuation byte is 10xxxxxx: bit 7 set and bit 6 clear. One mark per byte at bit 0
    // after the shift; the multiplication sums the eight bytes into the top one.
    const std::uint64_t marks = ((word & ~(word << 1)) >> 7) & 0x0101010101010101ULL;
    continuation += static_cast<std::size_t>((marks * 0x0101010101010101ULL) >> 56);
  }
  for (; i < n; ++i) continuation += is_utf8_continuation(p[i]) ? 1 : 0;
  return n - continuation;
}

bool is_valid_utf8(std::string_view text) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && all_ascii8(p + i)) {
      i += 8;
      continue;
    }
    const std::size_t len = sequence_length(p + i, n - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) noexcept {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  // Step back over continuation bytes to the start of the sequence the cut falls in.
  while (end > 0 && is_utf8_continuation(static_cast<unsigned char>(text[end]))) --end;
  return text.substr(0, end);
}

bool is_clean_text(std::string_view text) noexcept {
  for (char c : text) {
    if (is_refused_control(static_cast<unsigned char>(c))) return false;
  }
  return is_valid_utf8(text);
}

}  // namespace mediagen
