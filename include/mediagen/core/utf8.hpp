#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace mediagen {

// Strict UTF-8: no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no
// stray continuation bytes, no truncated sequences, no 5- or 6-byte forms.
bool is_valid_utf8(std::string_view text) noexcept;

// The length of the valid sequence that starts at text[0] (1 to 4), or 0 when the bytes there
// do not start one (by the rules of is_valid_utf8). text must not be empty.
std::size_t utf8_sequence_length(std::string_view text) noexcept;

// One decoded code point and its length in bytes.
struct CodePoint {
  char32_t value = 0;
  std::size_t length = 1;
};

// The code point that starts at text[0], by the rules of is_valid_utf8; nullopt when the bytes
// there start no valid sequence or text is empty. What a bad byte stands for is the caller's call.
std::optional<CodePoint> decode_utf8(std::string_view text) noexcept;

// A byte of the form 10xxxxxx: never the first byte of a code point.
constexpr bool is_utf8_continuation(unsigned char b) noexcept { return (b & 0xC0U) == 0x80U; }

// Number of code points of valid UTF-8: the count of bytes that are not continuation bytes
// (so any other input counts each stray byte once).
std::size_t count_code_points(std::string_view text) noexcept;

// The longest prefix of at most max_bytes that does not end inside a code point: text from
// outside is shortened only there, so what is echoed or stored stays valid UTF-8.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) noexcept;

// A control character that text fields refuse: C0 other than TAB, LF and CR, and DEL. U+0000
// cannot be stored in PostgreSQL text at all; the others are never meaningful in a name or a
// prompt and break logs and terminals.
constexpr bool is_refused_control(unsigned char c) noexcept {
  return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F;
}

// Valid UTF-8 with no refused control character: what every text field from outside must be.
bool is_clean_text(std::string_view text) noexcept;

}  // namespace mediagen
