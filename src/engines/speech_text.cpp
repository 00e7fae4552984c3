#include "speech_text.hpp"

#include <algorithm>
#include <optional>

namespace mediagen::engines::detail {
namespace {

struct Decoded {
  char32_t cp;
  std::size_t size;
};

// Decodes the code point at `at` of text known to be valid UTF-8.
Decoded decode(std::string_view text, std::size_t at) {
  const auto b0 = static_cast<unsigned char>(text[at]);
  if (b0 < 0x80) return {b0, 1};
  const std::size_t size = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : 2;
  char32_t cp = b0 & (size == 2 ? 0x1F : size == 3 ? 0x0F : 0x07);
  for (std::size_t i = 1; i < size && at + i < text.size(); ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3F);
  }
  return {cp, size};
}

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
    const auto d = decode(text, end);
    if (is_space(d.cp)) break;
    end += d.size;
    if (first || !trailing_punctuation(d.cp)) last_kept = end;
    first = false;
  }
  return last_kept;
}

}  // namespace

bool is_space(char32_t cp) {
  if (cp == ' ' || (cp >= '\t' && cp <= '\r')) return true;
  if (cp < 0x85) return false;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

bool blank(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto d = decode(text, i);
    if (!is_space(d.cp)) return false;
    i += d.size;
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
    i += decode(text, i).size;
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
      const auto d = decode(text, offset);
      if (!is_space(d.cp)) break;
      offset += d.size;
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
        const auto d = decode(text, i);
        if (is_space(d.cp)) {
          end = i;
          break;
        }
        i += d.size;
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
