#include "speech_text.hpp"

#include <algorithm>
#include <optional>

namespace mediagen::engines::detail {
namespace {

bool trailing_punctuation(char32_t cp) {
  switch (cp) {
    case '.': case ',': case ';': case ':': case '!': case '?': case '"': case '\'': case ')':
    case ']': case '}': case U'…': case U'»': case U'”': case U'’': case U'。': case U'、':
    case U'！': case U'？': case U'，':
      return true;
    default:
      return false;
  }
}

// End of the run of non-space characters starting at `from`, without trailing punctuation
// (at least one code point is kept).
std::size_t token_end(std::string_view text, std::size_t from) {
  std::size_t end = from;
  std::size_t last_kept = from;
  bool first = true;
  while (end < text.size()) {
    const auto d = decode_code_point(text, end);
    if (is_space(d.value)) break;
    end += d.length;
    if (first || !trailing_punctuation(d.value)) last_kept = end;
    first = false;
  }
  return last_kept;
}

}  // namespace

CodePoint decode_code_point(std::string_view text, std::size_t at) {
  return decode_utf8(text.substr(at)).value_or(CodePoint{U'\uFFFD', 1});
}

bool is_space(char32_t cp) {
  if (cp == ' ' || (cp >= '\t' && cp <= '\r')) return true;
  if (cp < 0x85) return false;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

bool blank(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto d = decode_code_point(text, i);
    if (!is_space(d.value)) return false;
    i += d.length;
  }
  return true;
}

std::vector<WordTiming> map_word_events(std::string_view text, std::span<const RawWordEvent> events,
                                        std::int64_t shift_ms) {
  // Byte offset of every code point, plus the end of the text.
  std::vector<std::size_t> starts;
  starts.reserve(text.size() + 1);
  for (std::size_t i = 0; i < text.size();) {
    starts.push_back(i);
    i += decode_code_point(text, i).length;
  }
  const std::size_t code_points = starts.size();
  starts.push_back(text.size());

  struct Candidate {
    std::size_t offset;
    std::size_t length;
    std::int64_t start_ms;
    bool moved;
  };
  std::vector<Candidate> candidates;
  candidates.reserve(events.size());
  for (const auto& e : events) {
    if (e.text_position < 1) continue;
    const auto cp = static_cast<std::size_t>(e.text_position - 1);
    if (cp >= code_points) continue;
    std::size_t offset = starts[cp];
    bool moved = false;
    while (offset < text.size()) {
      const auto d = decode_code_point(text, offset);
      if (!is_space(d.value)) break;
      offset += d.length;
      moved = true;
    }
    if (offset >= text.size()) continue;
    std::size_t end = 0;
    if (moved) {
      end = token_end(text, offset);
    } else {
      const std::size_t end_cp = std::min(code_points, cp + static_cast<std::size_t>(std::max(e.length, 1)));
      end = starts[end_cp];
      // Stop at whitespace inside espeak's span.
      for (std::size_t i = offset; i < end;) {
        const auto d = decode_code_point(text, i);
        if (is_space(d.value)) {
          end = i;
          break;
        }
        i += d.length;
      }
      if (end <= offset) end = token_end(text, offset);
    }
    candidates.push_back({offset, end - offset, e.audio_ms + shift_ms, moved});
  }

  std::vector<WordTiming> words;
  words.reserve(candidates.size());
  std::optional<std::size_t> last_end;  // end of the previous kept word
  std::int64_t last_ms = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (c.moved && i + 1 < candidates.size() && !candidates[i + 1].moved && candidates[i + 1].offset == c.offset) {
      continue;
    }
    if (last_end && c.offset < *last_end) continue;
    const std::int64_t start = std::max(c.start_ms, last_ms);
    words.push_back({c.offset, c.length, start});
    last_end = c.offset + c.length;
    last_ms = start;
  }
  return words;
}

}  // namespace mediagen::engines::detail
