#pragma once
// The chunker's byte-level scan (chunker.cpp): code points, sentence terminators and closers,
// extenders, whitespace runs. Hot: the scan calls these for every code point of a text of up to
// a million, so the common ASCII and two-byte cases are inline here.
#include <cstddef>
#include <string_view>

#include "mediagen/core/utf8.hpp"
#include "mediagen/orders/text.hpp"

namespace mediagen::orders::scan {

// Sentence terminators: . ! ? … ‼ ⁇ ⁈ ⁉ and the CJK forms.
inline bool is_cjk_terminator(char32_t c) noexcept {
  return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF61;  // 。！？｡
}

inline bool is_terminator(char32_t c) noexcept {
  switch (c) {
    case U'.': case U'!': case U'?': case 0x2026: case 0x203C: case 0x2047: case 0x2048: case 0x2049:
      return true;
    default:
      return is_cjk_terminator(c);
  }
}

// Closing quotes and brackets that may follow a terminator and still end the sentence.
inline bool is_closer(char32_t c) noexcept {
  switch (c) {
    case U'"': case U'\'': case U')': case U']': case U'}':
    case 0x00BB: case 0x2019: case 0x201D: case 0x203A:            // » ’ ” ›
    case 0xFF09: case 0xFF3D: case 0xFF5D: case 0xFF02: case 0xFF07:  // ） ］ ｝ ＂ ＇
    case 0x3009: case 0x300B: case 0x300D: case 0x300F: case 0x3011:  // 〉 》 」 』 】
    case 0x3015: case 0x3017: case 0x3019: case 0x301B:               // 〕 〗 〙 〛
      return true;
    default:
      return false;
  }
}

// Code points that belong to the one before them (combining marks, variation selectors, emoji
// modifiers, joiners, tags): a forced cut inside a long word avoids landing before one.
inline bool is_extender(char32_t c) noexcept {
  if (c < 0x0300) return false;
  return (c <= 0x036F) || (c >= 0x0483 && c <= 0x0489) || (c >= 0x0591 && c <= 0x05C7) ||
         (c >= 0x0610 && c <= 0x061A) || (c >= 0x064B && c <= 0x065F) || c == 0x0670 ||
         (c >= 0x06D6 && c <= 0x06ED) || (c >= 0x0900 && c <= 0x0903) || (c >= 0x093A && c <= 0x094F) ||
         (c >= 0x0951 && c <= 0x0957) || (c >= 0x0962 && c <= 0x0963) || c == 0x0E31 ||
         (c >= 0x0E34 && c <= 0x0E3A) || (c >= 0x0E47 && c <= 0x0E4E) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || c == 0x200C || c == 0x200D || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0x3099 && c <= 0x309A) || (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xFE20 && c <= 0xFE2F) ||
         (c >= 0x1F3FB && c <= 0x1F3FF) || (c >= 0xE0020 && c <= 0xE007F) || (c >= 0xE0100 && c <= 0xE01EF);
}

// Decoding with the ASCII case inline: the scan below calls this for every code point.
inline CodePoint next_code_point(std::string_view text, std::size_t pos) noexcept {
  const auto b = static_cast<unsigned char>(text[pos]);
  if (b < 0x80) return {b, 1};
  return decode_at(text, pos);
}

// Bytes the scan can take without a second look: ASCII that is not whitespace, a terminator, a
// closer or '<'.
struct PlainAscii {
  bool table[256] = {};
  constexpr PlainAscii() {
    for (int b = 0; b < 0x80; ++b) table[b] = true;
    for (const char c : std::string_view(" \t\n\v\f\r.!?\"')]}<")) table[static_cast<unsigned char>(c)] = false;
  }
};
constexpr PlainAscii kPlainAscii{};

// A two-byte sequence with a lead in C3..DF (Latin-1 letters from U+00C0, Greek, Cyrillic,
// Armenian, Hebrew, Arabic, combining marks): never whitespace, a terminator or a closer
// (U+0085 and U+00BB have lead C2).
inline bool plain_two_byte(std::string_view text, std::size_t pos, std::size_t end) noexcept {
  const auto b = static_cast<unsigned char>(text[pos]);
  return b >= 0xC3 && b <= 0xDF && pos + 1 < end && is_utf8_continuation(static_cast<unsigned char>(text[pos + 1]));
}

// A whitespace run starting at `pos`: where it ends, its line breaks (CR LF once) and code points.
struct SpaceRun {
  std::size_t end = 0;
  int breaks = 0;
  std::size_t code_points = 0;
};

inline SpaceRun scan_space_run(std::string_view text, std::size_t pos, std::size_t limit) noexcept {
  SpaceRun run{pos, 0, 0};
  while (run.end < limit) {
    const CodePoint cp = next_code_point(text, run.end);
    if (!is_space(cp.value)) break;
    if (!(cp.value == U'\r' && run.end + 1 < limit && text[run.end + 1] == '\n')) {
      run.breaks += line_break_weight(cp.value);
    }
    run.end += cp.length;
    ++run.code_points;
  }
  return run;
}

}  // namespace mediagen::orders::scan
