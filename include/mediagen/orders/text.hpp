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

// The chunker: splits a speech text into chunks that each fit one engine call (the model's
// capacity, counted in its unit), and computes the per-chunk fields of the /text table (spec
// 2.4). Pure functions, no I/O; the preview and order creation call the same code.
//
// The cleaned text
//   plan.cleaned = strip_brackets(raw) with whitespace at both ends removed: exactly what is
//   spoken and billed. Every chunk is a slice of it with no whitespace at either end; the
//   whitespace cut between two chunks is kept in `separator` of the chunk before it, so
//     rejoin(plan) == chunk[0].text + chunk[0].separator + chunk[1].text + ... == plan.cleaned
//   (the last chunk's separator is empty). A text with nothing to speak gives no chunks.
//
// Boundaries, best first
//   paragraph  a whitespace run holding a blank line (two or more line breaks; CR LF is one)
//   sentence   whitespace after . ! ? ... (and the forms … ‼ ⁇ ⁈ ⁉ 。 ！ ？ ｡), optionally followed by
//              closing quotes or brackets; a whitespace run holding one line break (headings,
//              list items, verse); and right after a CJK terminator (。！？｡ + closers) even
//              without a space, the separator then being empty
//   word       any other whitespace run, except whitespace inside a short angle-bracket tag
//              ("<break time=\"1s\" />": from '<' to the next '>' with no '<' or line break
//              between, at most 128 bytes, and fitting the capacity): a tag is never cut
//   inside a word: only when one word alone is longer than the capacity; the cut is at a code
//              point boundary (never inside a UTF-8 sequence) and, when the word allows it, not
//              before a combining mark, variation selector, emoji modifier or after a ZWJ.
//
// Packing (ordinary mode): greedy. From the current position the chunk takes as much text as
// fits the capacity, then ends at the last paragraph boundary in that window if the chunk is
// then "big enough", else at the last sentence-or-paragraph boundary if big enough, else at the
// last boundary of any kind. Big enough = at least 500 code points or at least half the
// capacity (performance anchor G8: chunks of ~500 characters and more cost nothing extra to
// synthesise; tiny chunks do). Chunks therefore fill up to the capacity and small paragraphs
// and sentences are packed together.
//
// Paragraph mode: every paragraph starts a new chunk (a paragraph longer than the capacity is
// split as above and all its chunks carry its index); chunks carry `paragraph_index`, the
// zero-based paragraph of the cleaned text (the paragraph link of spec 2.4). Ordinary mode:
// paragraph_index is nullopt.
//
// Capacity: every chunk's raw_length <= capacity. A capacity of 0 is taken as 1. The one case a
// chunk may exceed it: capacity in utf8_bytes smaller than a single code point (e.g. 2 bytes and
// an emoji); that chunk then holds exactly that one code point.
//
// Billing: billable_length = code points of the chunk text, spaces and line breaks inside the
// chunk included ("tokens are billable characters"); the separators between chunks (and the
// whitespace trimmed at the ends) are not billed. Square-bracketed text never reaches a chunk.
//
// Pauses: a pause is
//   - an ellipsis: a run of two or more '.', or a run of '.' and '…' holding at least one '…'
//     (one run = one pause, however long);
//   - a break tag: "<break" (any case) followed by whitespace, '/' or '>' (one tag = one pause);
//   - a paragraph break inside a chunk (a whitespace run with a blank line). Paragraph breaks
//     that separate chunks are not pauses of any chunk.
// Caps per chunk: at most kMaxPausesPerChunk pauses, and at most one pause per
// kCharsPerPause code points of the chunk (pauses <= max(1, length / 50)). A chunk over a cap
// has caps_ok = false and so does the plan; nothing fails.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


namespace mediagen::orders {

enum class GenerationMode { ordinary, paragraph };

std::string_view to_string(GenerationMode mode) noexcept;  // "ordinary", "paragraph"
std::optional<GenerationMode> generation_mode_from_string(std::string_view name) noexcept;

inline constexpr std::size_t kMaxPausesPerChunk = 20;
inline constexpr std::size_t kCharsPerPause = 50;
// A chunk of at least this many code points is never considered tiny (G8).
inline constexpr std::size_t kComfortableChunkChars = 500;

// The lead chunk (answers that stream the audio while it is made): the first chunk ends at the
// first sentence-or-paragraph boundary after at least kLeadMinChars code points, inside a window
// of min(lead_capacity, capacity) units; with no such boundary there, it is packed like any chunk
// into that window. Its audio is made and sent first, so the listener waits for one sentence, not
// for a chunk the size of the capacity. The cut's separator is not billed, like every separator.
inline constexpr std::size_t kLeadMinChars = 20;

struct ChunkerOptions {
  std::size_t capacity = 0;
  CapacityUnit unit = CapacityUnit::chars;
  GenerationMode mode = GenerationMode::ordinary;
  std::size_t lead_capacity = 0;  // 0: no lead chunk (see above)
};

struct ChunkText {
  std::size_t index = 0;                         // 0..n-1, assembly order
  std::string text;                              // what is spoken; no whitespace at either end
  std::optional<std::size_t> paragraph_index;    // paragraph mode only
  std::size_t length = 0;                        // code points of text
  std::size_t raw_length = 0;                    // text in the capacity unit
  std::size_t billable_length = 0;               // code points of text (see Billing above)
  std::size_t pauses = 0;                        // see Pauses above
  std::string separator;                         // whitespace cut after this chunk ("" for the last)
  bool caps_ok = true;                           // this chunk is within the pause caps
};

struct ChunkPlan {
  std::string cleaned;                 // see "The cleaned text" above
  std::vector<ChunkText> chunks;
  std::size_t total_chars = 0;         // code points of cleaned
  std::size_t billable_chars = 0;      // sum of the chunks' billable_length (= tokens)
  std::size_t total_pauses = 0;        // sum of the chunks' pauses
  bool caps_ok = true;                 // every chunk within the pause caps
};

// Splits `raw_text` (already checked to be valid UTF-8; invalid input never crashes but is not
// split meaningfully) into chunks as described above.
ChunkPlan plan_chunks(std::string_view raw_text, const ChunkerOptions& options);

// The cleaned text back from the chunks and their separators: rejoin(plan) == plan.cleaned.
std::string rejoin(const ChunkPlan& plan);

// The pauses of a chunk text and whether they are within the caps.
std::size_t count_pauses(std::string_view chunk_text) noexcept;
bool pauses_within_caps(std::size_t pauses, std::size_t length_code_points) noexcept;

// The fields of GET /orders/{order}/items/{item}/text (spec 2.4) for one chunk.
//   length               code points of the text
//   original_text_length code points of the text the chunk was created with (the ceiling for a
//                        regenerate text)
//   free_length          the paid volume: billable_length at creation
//   billable_length      code points of the current text (as above)
//   max_billable_length  the most a replacement text may bill, surcharge included:
//                        min(capacity, ceil(1.2 * free_length)); never below free_length
//   max_raw_length       the capacity in capacity_unit; payment cannot lift it
//   surcharge_applies    billable_length > free_length (false at creation)
//   capacity_unit        the unit of raw_length and max_raw_length
//   raw_length           the current text in capacity_unit
struct ChunkTextFields {
  std::size_t length = 0;
  std::size_t original_text_length = 0;
  std::size_t free_length = 0;
  std::size_t billable_length = 0;
  std::size_t max_billable_length = 0;
  std::size_t max_raw_length = 0;
  bool surcharge_applies = false;
  CapacityUnit capacity_unit = CapacityUnit::chars;
  std::size_t raw_length = 0;
};

// max_billable_length for a paid volume under a capacity (the formula above).
std::size_t max_billable_for(std::size_t free_length, std::size_t capacity) noexcept;

// The fields of a freshly planned chunk.
ChunkTextFields text_fields(const ChunkText& chunk, const ChunkerOptions& options) noexcept;

// The fields once the chunk's text is replaced by `cleaned_text` (a retry or regenerate text,
// already through strip_brackets and trimmed): length, billable_length, raw_length and
// surcharge_applies follow the new text; the creation values (original_text_length,
// free_length, max_billable_length, max_raw_length, capacity_unit) stay.
ChunkTextFields revise_text_fields(const ChunkTextFields& current, std::string_view cleaned_text) noexcept;

// A replacement text is acceptable when it fits the capacity (raw_length <= max_raw_length)
// and bills no more than max_billable_length (otherwise the caller refuses it, e.g. with
// text_over_capacity). Within free_length it costs nothing more (spec 8.2 item 3); between
// free_length and max_billable_length the difference is the surcharge. A regenerate text is in
// addition held to original_text_length by its caller.
bool within_limits(const ChunkTextFields& fields) noexcept;

}  // namespace mediagen::orders
