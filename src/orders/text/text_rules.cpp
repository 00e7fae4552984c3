#include "mediagen/orders/text.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "chunk_scan.hpp"

namespace mediagen::orders {

namespace {

// Closing punctuation that takes no space before it: a removed group's whitespace is dropped
// when one of these follows.
bool is_closing_punctuation(char32_t c) noexcept {
  switch (c) {
    case U'.': case U',': case U'!': case U'?': case U';': case U':': case U')': case U'}':
    case U'\u2026':  // …
    case U'\u00BB':  // »
    case U'\u201D':  // ”
    case U'\u2019':  // ’
    case U'\u3002': case U'\uFF0C': case U'\u3001': case U'\uFF01': case U'\uFF1F':  // 。，、！？
    case U'\uFF1B': case U'\uFF1A': case U'\uFF09': case U'\u300D': case U'\u300F':  // ；：）」』
      return true;
    default:
      return false;
  }
}

// Length of the breaking-whitespace run at the start of `text`.
std::size_t leading_space_length(std::string_view text) noexcept {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const CodePoint cp = decode_at(text, pos);
    if (!is_space(cp.value)) break;
    pos += cp.length;
  }
  return pos;
}

// Start of the breaking-whitespace run at the end of `text`.
std::size_t trailing_space_start(std::string_view text) noexcept {
  std::size_t pos = text.size();
  while (pos > 0) {
    const std::size_t start = previous_code_point_start(text, pos);
    if (!is_space(decode_at(text, start).value)) break;
    pos = start;
  }
  return pos;
}

int run_line_breaks(std::string_view run) noexcept {
  int breaks = 0;
  for (std::size_t pos = 0; pos < run.size();) {
    const CodePoint cp = decode_at(run, pos);
    if (cp.value == U'\r' && pos + 1 < run.size() && run[pos + 1] == '\n') {
      pos += 1;  // CR LF: the LF counts
    } else {
      breaks += line_break_weight(cp.value);
    }
    pos += cp.length;
  }
  return breaks;
}

// The one run kept where a removed group had whitespace on both sides.
std::string_view merged_run(std::string_view before, std::string_view after) noexcept {
  if (before.empty()) return after;
  if (after.empty()) return before;
  return run_line_breaks(after) > run_line_breaks(before) ? after : before;
}

}  // namespace

std::size_t measure(std::string_view text, CapacityUnit unit) noexcept {
  return unit == CapacityUnit::utf8_bytes ? count_utf8_bytes(text) : count_code_points(text);
}

CodePoint decode_at(std::string_view text, std::size_t pos) noexcept {
  // A byte that starts no valid sequence decodes as itself (see the header).
  const auto lead = static_cast<unsigned char>(text[pos]);
  return decode_utf8(text.substr(pos)).value_or(CodePoint{lead, 1});
}

std::size_t previous_code_point_start(std::string_view text, std::size_t pos) noexcept {
  if (pos == 0) return 0;
  std::size_t start = pos - 1;
  // At most three continuation bytes belong to one code point.
  for (int back = 0; back < 3 && start > 0 && is_utf8_continuation(static_cast<unsigned char>(text[start])); ++back) {
    --start;
  }
  // Only a lead byte whose sequence really ends at pos makes a code point; otherwise one byte.
  if (decode_at(text, start).length == pos - start) return start;
  return pos - 1;
}

std::string_view trim_spaces(std::string_view text) noexcept {
  const std::size_t begin = leading_space_length(text);
  text.remove_prefix(begin);
  text.remove_suffix(text.size() - trailing_space_start(text));
  return text;
}

std::string strip_brackets(std::string_view text) {
  if (text.find('[') == std::string_view::npos) return std::string(text);

  // Outermost matched groups, in text order. Each ']' closes the nearest open '['; a new pair
  // swallows the groups recorded inside it (they sit at the end of the list).
  std::vector<std::size_t> open;
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [first, last] byte positions
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      open.push_back(i);
    } else if (text[i] == ']' && !open.empty()) {
      const std::size_t first = open.back();
      open.pop_back();
      while (!groups.empty() && groups.back().first > first) groups.pop_back();
      groups.emplace_back(first, i);
    }
  }
  if (groups.empty()) return std::string(text);

  std::string out;
  out.reserve(text.size());
  bool after_group = false;  // a group was removed and no visible text written since
  std::size_t from = 0;
  for (std::size_t g = 0; g <= groups.size(); ++g) {
    const bool last = g == groups.size();
    const std::string_view segment = text.substr(from, (last ? text.size() : groups[g].first) - from);
    if (!after_group) {
      out.append(segment);
    } else {
      const std::size_t lead = leading_space_length(segment);
      const std::string_view after = segment.substr(0, lead);
      const std::string_view rest = segment.substr(lead);
      const std::size_t tail = trailing_space_start(out);
      const std::string before(std::string_view(out).substr(tail));
      out.resize(tail);
      if (rest.empty()) {
        // Only whitespace between this group and the next one (or the end of the text).
        if (!last && tail > 0) out.append(merged_run(before, after));
      } else {
        const bool at_start = tail == 0;
        const bool punctuation_follows = is_closing_punctuation(decode_at(rest, 0).value);
        if (!at_start && !punctuation_follows) out.append(merged_run(before, after));
        out.append(rest);
        after_group = false;
      }
    }
    if (!last) {
      after_group = true;
      from = groups[g].second + 1;
    }
  }
  return out;
}

// The pauses of a chunk (text.hpp, Pauses).
// Bytes that may start a pause or a whitespace run with line breaks: '.', '<', the ASCII line
// breaks, and the leads of U+0085 (C2) and of … U+2028 U+2029 (E2).
struct PauseStart {
  bool table[256] = {};
  constexpr PauseStart() {
    for (const char c : std::string_view(".<\n\v\f\r")) table[static_cast<unsigned char>(c)] = true;
    table[0xC2] = true;
    table[0xE2] = true;
  }
};
constexpr PauseStart kPauseStart{};

using namespace scan;  // the byte-level scan of chunk_scan.hpp

std::size_t count_pauses(std::string_view text) noexcept {
  std::size_t pauses = 0;
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto is_ellipsis_at = [&](std::size_t pos) {
    return pos + 2 < n && text[pos] == '\xE2' && text[pos + 1] == '\x80' && text[pos + 2] == '\xA6';
  };
  while (i < n) {
    if (!kPauseStart.table[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    const char c = text[i];
    if (c == '.' || is_ellipsis_at(i)) {
      std::size_t dots = 0;
      std::size_t ellipses = 0;
      while (i < n) {
        if (text[i] == '.') {
          ++dots;
          ++i;
        } else if (is_ellipsis_at(i)) {
          ++ellipses;
          i += 3;
        } else {
          break;
        }
      }
      if (ellipses > 0 || dots >= 2) ++pauses;
      continue;
    }
    if (c == '<' && i + 6 < n) {
      static constexpr std::string_view kBreak = "break";
      bool match = true;
      for (std::size_t k = 0; k < kBreak.size() && match; ++k) {
        const char t = text[i + 1 + k];
        match = (t | 0x20) == kBreak[k];
      }
      const char follow = text[i + 6];
      if (match && (follow == '/' || follow == '>' || follow == ' ' || follow == '\t' || follow == '\n' ||
                    follow == '\r')) {
        ++pauses;
        i += 6;
        continue;
      }
    }
    // A line break: the whitespace run from here on (what came before it in the run held no
    // line break, or the scan would have stopped there).
    const CodePoint cp = next_code_point(text, i);
    if (line_break_weight(cp.value) > 0) {
      const SpaceRun run = scan_space_run(text, i, n);
      if (run.breaks >= 2) ++pauses;
      i = run.end;
      continue;
    }
    i += cp.length;
  }
  return pauses;
}

bool pauses_within_caps(std::size_t pauses, std::size_t length_code_points) noexcept {
  return pauses <= kMaxPausesPerChunk && pauses <= std::max<std::size_t>(1, length_code_points / kCharsPerPause);
}

}  // namespace mediagen::orders
