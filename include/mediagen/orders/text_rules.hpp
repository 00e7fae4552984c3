#pragma once
// Text rules for speech (spec section 1): what of an input text is spoken and billed, and the
// UTF-8 measures the chunker and the /text fields count in. Pure functions, no I/O.
//
// Square brackets (strip_brackets):
//   - Every matched "[...]" group is removed, brackets included: it is neither spoken nor billed.
//     A group may span lines and paragraphs.
//   - Nesting: "[a [b] c]" is one group; the outermost matched pair is what is removed.
//   - Brackets pair like parentheses in code (each ']' closes the nearest open '['). A '[' that
//     is never closed and a ']' that closes nothing stay as literal text: "[a [b] c" -> "[a c",
//     "a] b" -> "a] b".
//   - Whitespace left behind: the whitespace runs on both sides of a removed group (and of a
//     chain of groups separated only by whitespace) become one run: the one that carries more
//     line breaks, the one before on a tie ("a [x] b" -> "a b", "a\n\n[x] b" -> "a\n\nb").
//     That run is dropped when the group starts or ends the text ("[x] Hi" -> "Hi",
//     "Hi [x]" -> "Hi") or when closing punctuation follows it ("Hi [x]." -> "Hi.").
//     Whitespace not touching a removed group is left as it is.
//   - Nothing else changes: parentheses, angle-bracket tags (<break time="1s"/>) and asterisks
//     are kept, spoken and billed.
//
// Whitespace: the breaking spaces of Unicode (ASCII space, tab, CR, LF, VT, FF, U+0085, U+1680,
// U+2000..U+2006, U+2008..U+200A, U+2028, U+2029, U+205F, U+3000). No-break spaces (U+00A0,
// U+2007, U+202F) join words and are not whitespace here.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/capacity_unit.hpp"
#include "mediagen/core/utf8.hpp"

namespace mediagen::orders {

using mediagen::CapacityUnit;
using mediagen::capacity_unit_from_string;

using mediagen::is_valid_utf8;

using mediagen::CodePoint;
using mediagen::count_code_points;

// Number of UTF-8 bytes (the size; named so call sites say which measure they mean).
constexpr std::size_t count_utf8_bytes(std::string_view text) noexcept { return text.size(); }

// The length of `text` in `unit`.
std::size_t measure(std::string_view text, CapacityUnit unit) noexcept;

// The code point at `pos`. Decoding never reads past the end: a byte that does not start a
// well-formed sequence decodes as itself (value = the byte, length 1).
CodePoint decode_at(std::string_view text, std::size_t pos) noexcept;

// The start of the code point that ends at `pos` (pos > 0): steps back over continuation bytes.
std::size_t previous_code_point_start(std::string_view text, std::size_t pos) noexcept;

// A breaking whitespace code point (see above).
constexpr bool is_space(char32_t c) noexcept {
  if (c < 0x80) return c == U' ' || (c >= U'\t' && c <= U'\r');
  if (c < 0x2000) return c == 0x0085 || c == 0x1680;
  return (c <= 0x200A && c != 0x2007) || c == 0x2028 || c == 0x2029 || c == 0x205F || c == 0x3000;
}

// How many line breaks a whitespace code point stands for: LF, CR, VT, FF, U+0085, U+2028 -> 1,
// U+2029 (paragraph separator) -> 2, others 0. A CR directly followed by LF counts once; the
// callers that walk runs handle that pair.
constexpr int line_break_weight(char32_t c) noexcept {
  if (c >= U'\n' && c <= U'\r') return 1;
  if (c == 0x0085 || c == 0x2028) return 1;
  return c == 0x2029 ? 2 : 0;
}

// `text` without breaking whitespace at either end.
std::string_view trim_spaces(std::string_view text) noexcept;

// The bracket rule above. Input is expected to be valid UTF-8; the output then is too.
std::string strip_brackets(std::string_view text);

}  // namespace mediagen::orders
