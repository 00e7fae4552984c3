// Cue building for subtitles.hpp: the chunk text is cut into units (space-free pieces, each
// starting a word or a timed word), units get times, and consecutive units are packed into cues.
#include <algorithm>
#include <optional>

#include "mediagen/engines/speech.hpp"
#include "speech_text.hpp"

namespace mediagen::engines {
namespace {

// Sentence terminators of scripts written without spaces: a unit ends after them even inside a
// run of non-space characters.
bool closes_sentence_without_space(char32_t cp) {
  return cp == U'。' || cp == U'！' || cp == U'？' || cp == U'｡';
}

bool sentence_terminator(char32_t cp) {
  return cp == '.' || cp == '!' || cp == '?' || cp == U'…' || cp == U'‼' || cp == U'⁇' || cp == U'⁈' ||
         cp == U'⁉' || cp == U'؟' || cp == U'।' || cp == U'॥' || closes_sentence_without_space(cp);
}

// Scripts written without spaces between words (Chinese, Japanese, Thai, Khmer, ...): a line or
// a cue may end between two of their words. Elsewhere a word is only ever cut at whitespace, so
// "3/4/2021", timed in two places, stays whole.
bool written_without_spaces(char32_t cp) {
  return (cp >= 0x0E00 && cp <= 0x0EFF) ||    // Thai, Lao
         (cp >= 0x1000 && cp <= 0x109F) ||    // Myanmar
         (cp >= 0x1780 && cp <= 0x17FF) ||    // Khmer
         (cp >= 0x3000 && cp <= 0x30FF) ||    // CJK punctuation, Hiragana, Katakana
         (cp >= 0x3400 && cp <= 0x4DBF) ||    // CJK extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||    // CJK unified ideographs
         (cp >= 0xF900 && cp <= 0xFAFF) ||    // CJK compatibility ideographs
         (cp >= 0xFF00 && cp <= 0xFFEF) ||    // full-width forms
         (cp >= 0x20000 && cp <= 0x3FFFF);    // CJK extensions B and later
}

bool closing_mark(char32_t cp) {
  return cp == '"' || cp == '\'' || cp == ')' || cp == ']' || cp == '}' || cp == U'»' || cp == U'”' ||
         cp == U'’' || cp == U'」' || cp == U'』' || cp == U'）' || cp == U'›';
}

// A space-free piece of a chunk's text, shown as a whole.
struct Unit {
  std::size_t begin = 0;  // bytes in the chunk text
  std::size_t end = 0;
  int code_points = 0;
  bool space_before = false;      // whitespace separates it from the previous unit
  bool breakable_before = false;  // a line or cue may end before it
  bool ends_sentence = false;     // a cue ends after it
  std::int64_t start_ms = 0;  // on the track
};

struct TimedUnits {
  std::vector<Unit> units;
  std::int64_t end_ms;  // the chunk's end on the track
};

// Cuts the text into units: a unit starts at every word (whitespace-separated), at every timed
// word start, and after a CJK terminator. times[i] is the timing of unit i, if it has one.
std::vector<Unit> cut_units(const TimedText& chunk, std::vector<std::optional<std::int64_t>>& times) {
  const auto text = chunk.text;
  const std::int64_t chunk_end = chunk.offset_ms + std::max<std::int64_t>(chunk.duration_ms, 0);
  std::vector<Unit> units;
  std::size_t word = 0;
  std::int64_t last_ms = chunk.offset_ms;
  bool in_token = false;
  bool space_before = false;
  bool cut_next = false;
  char32_t previous_cp = 0;
  for (std::size_t at = 0; at < text.size();) {
    const auto d = detail::decode_code_point(text, at);
    if (detail::is_space(d.value)) {
      in_token = false;
      space_before = !units.empty();
      at += d.length;
      continue;
    }
    // Timings at or before this code point belong here (one that points at whitespace moves to
    // the next word); the first wins. Times never go backwards and stay inside the chunk.
    std::optional<std::int64_t> time;
    for (; word < chunk.words.size() && chunk.words[word].text_offset <= at; ++word) {
      if (time) continue;
      const auto ms = std::clamp(chunk.offset_ms + chunk.words[word].start_ms, last_ms, std::max(last_ms, chunk_end));
      time = ms;
      last_ms = ms;
    }
    if (!in_token || time || cut_next) {
      const bool breakable = space_before || written_without_spaces(previous_cp) || written_without_spaces(d.value);
      units.push_back(Unit{.begin = at, .end = at, .space_before = space_before, .breakable_before = breakable});
      times.push_back(time);
      space_before = false;
    }
    in_token = true;
    cut_next = closes_sentence_without_space(d.value);
    previous_cp = d.value;
    units.back().end = at + d.length;
    ++units.back().code_points;
    at += d.length;
  }
  return units;
}

bool ends_with_terminator(std::string_view piece) {
  // Walk back over closing quotes and brackets, then look for a terminator.
  std::size_t at = piece.size();
  while (at > 0) {
    std::size_t start = at - 1;
    while (start > 0 && is_utf8_continuation(static_cast<unsigned char>(piece[start]))) --start;
    const auto cp = detail::decode_code_point(piece, start).value;
    if (!closing_mark(cp)) return sentence_terminator(cp);
    at = start;
  }
  return false;
}

bool lower_case_letter(char32_t cp) {
  return (cp >= 'a' && cp <= 'z') || (cp >= 0xDF && cp <= 0xFF && cp != 0xF7) || (cp >= 0x430 && cp <= 0x45F);
}

// A full stop that does not end the sentence: an initial ("J.") or a title before a name. A
// subtitle cut after "Mr." would show the title alone.
bool abbreviation(std::string_view piece) {
  static constexpr std::string_view kTitles[] = {"Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "St.", "Mt.", "Jr.", "Sr.", "No."};
  if (piece.size() == 2 && piece[0] >= 'A' && piece[0] <= 'Z' && piece[1] == '.') return true;
  for (const auto title : kTitles) {
    if (piece == title) return true;
  }
  return false;
}

// Whether a cue may end after `piece`, followed by `next` ("" at the end of the text).
bool ends_sentence(std::string_view piece, std::string_view next) {
  if (!ends_with_terminator(piece) || abbreviation(piece)) return false;
  // "e.g. this" or "3 p.m. today": a sentence does not go on in lower case.
  return next.empty() || !lower_case_letter(detail::decode_code_point(next, 0).value);
}

// Units with times on the track; words longer than a line are cut into line-long pieces.
TimedUnits timed_units(const TimedText& chunk) {
  std::vector<std::optional<std::int64_t>> times;
  auto units = cut_units(chunk, times);
  const std::int64_t chunk_end = chunk.offset_ms + std::max<std::int64_t>(chunk.duration_ms, 0);

  // An untimed word is spoken with the next timed one; words after the last timing join it.
  std::optional<std::int64_t> next;
  for (std::size_t i = units.size(); i-- > 0;) {
    if (times[i]) {
      next = times[i];
    } else {
      times[i] = next;
    }
  }
  std::optional<std::int64_t> previous;
  for (auto& t : times) {
    if (t) {
      previous = t;
    } else {
      t = previous;
    }
  }
  int total_cp = 0;
  for (const auto& u : units) total_cp += u.code_points;
  int cp_before = 0;
  for (std::size_t i = 0; i < units.size(); ++i) {
    // No timings at all: spread the text evenly over the chunk.
    units[i].start_ms = times[i] ? *times[i] : chunk.offset_ms + (chunk_end - chunk.offset_ms) * cp_before / total_cp;
    const auto following = i + 1 < units.size() ? chunk.text.substr(units[i + 1].begin) : std::string_view{};
    units[i].ends_sentence =
        ends_sentence(chunk.text.substr(units[i].begin, units[i].end - units[i].begin), following) &&
        (i + 1 == units.size() || units[i + 1].breakable_before);
    cp_before += units[i].code_points;
  }

  std::vector<Unit> out;
  out.reserve(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) {
    const auto& u = units[i];
    if (u.code_points <= kSubtitleLineCodePoints) {
      out.push_back(u);
      continue;
    }
    // Line-long pieces, timed in proportion to their place in the word.
    const std::int64_t until = i + 1 < units.size() ? units[i + 1].start_ms : chunk_end;
    std::size_t at = u.begin;
    int done = 0;
    while (at < u.end) {
      // The pieces of a cut word must be able to go on separate lines.
      Unit piece{.begin = at, .space_before = at == u.begin && u.space_before,
                 .breakable_before = at == u.begin ? u.breakable_before : true};
      piece.start_ms = u.start_ms + (until - u.start_ms) * done / u.code_points;
      while (at < u.end && piece.code_points < kSubtitleLineCodePoints) {
        at += detail::decode_code_point(chunk.text, at).length;
        ++piece.code_points;
      }
      piece.end = at;
      piece.ends_sentence = at == u.end && u.ends_sentence;
      done += piece.code_points;
      out.push_back(piece);
    }
  }
  return {std::move(out), chunk_end};
}

// Where a cue of these units breaks into lines: 0 = one line, k = the second line starts at unit
// k (the most even split), nullopt = the units do not fit in two lines.
std::optional<std::size_t> line_break(std::span<const Unit> units) {
  // width[k] = width of units [0, k) on one line.
  std::vector<int> width(units.size() + 1, 0);
  for (std::size_t k = 0; k < units.size(); ++k) {
    width[k + 1] = width[k] + units[k].code_points + (k > 0 && units[k].space_before ? 1 : 0);
  }
  const int total = width.back();
  if (total <= kSubtitleLineCodePoints) return 0;
  std::optional<std::size_t> best;
  int best_longest = 0;
  for (std::size_t k = 1; k < units.size(); ++k) {
    if (!units[k].breakable_before) continue;
    const int first = width[k];
    const int second = total - width[k] - (units[k].space_before ? 1 : 0);
    const int longest = std::max(first, second);
    if (longest <= kSubtitleLineCodePoints && (!best || longest < best_longest)) {
      best = k;
      best_longest = longest;
    }
  }
  return best;
}

std::string cue_text(std::string_view text, std::span<const Unit> units, std::size_t break_at) {
  std::string out;
  for (std::size_t k = 0; k < units.size(); ++k) {
    if (k > 0 && k == break_at) {
      out += '\n';
    } else if (k > 0 && units[k].space_before) {
      out += ' ';
    }
    out.append(text.substr(units[k].begin, units[k].end - units[k].begin));
  }
  return out;
}

// The cues of one chunk, ends not yet checked against the neighbours.
void chunk_cues(const TimedText& chunk, std::vector<SubtitleCue>& cues) {
  const auto [units, chunk_end] = timed_units(chunk);
  const std::span<const Unit> all(units);
  const std::size_t first_cue = cues.size();
  const std::size_t n = units.size();
  for (std::size_t i = 0; i < n;) {
    // Grow the cue [i, j) unit by unit while it fits; it ends at the last place it may end.
    std::size_t j = i + 1;
    std::size_t end = 0;
    for (;; ++j) {
      if (j == n || units[j].breakable_before) end = j;
      if (j == n || units[j - 1].ends_sentence || !line_break(all.subspan(i, j + 1 - i))) break;
      const std::int64_t end_if_last = j + 1 < n ? units[j + 1].start_ms : chunk_end;
      if (end_if_last - units[i].start_ms > kSubtitleMaxCueMs) break;
    }
    // A run of glued units too long for a cue is cut where the limits are.
    if (end == 0) end = j;
    // Any prefix of units that fit still fits, so the cue has a line break.
    const auto cue = all.subspan(i, end - i);
    cues.push_back({units[i].start_ms, 0, cue_text(chunk.text, cue, *line_break(cue))});
    i = end;
  }
  for (std::size_t k = first_cue; k < cues.size(); ++k) {
    const std::int64_t next = k + 1 < cues.size() ? cues[k + 1].start_ms : chunk_end;
    cues[k].end_ms = std::min(next, cues[k].start_ms + kSubtitleMaxCueMs);
  }
}

}  // namespace

std::vector<SubtitleCue> subtitle_cues(std::span<const TimedText> chunks) {
  std::vector<SubtitleCue> cues;
  std::int64_t track_end = 0;
  for (const auto& chunk : chunks) {
    chunk_cues(chunk, cues);
    track_end = std::max(track_end, chunk.offset_ms + std::max<std::int64_t>(chunk.duration_ms, 0));
  }
  // Chunks are trusted to follow each other, but overlapping offsets or timings past a chunk's
  // end must still give a valid file: each cue starts where the previous one ended at the
  // earliest, lasts at least a millisecond, and nothing passes the end of the track.
  std::vector<SubtitleCue> out;
  out.reserve(cues.size());
  std::int64_t previous_end = 0;
  for (auto& cue : cues) {
    cue.start_ms = std::clamp(cue.start_ms, previous_end, std::max(previous_end, track_end));
    cue.end_ms = std::clamp(cue.end_ms, cue.start_ms, std::max(cue.start_ms, track_end));
    if (cue.end_ms == cue.start_ms) cue.end_ms = std::min(cue.start_ms + 1, track_end);
    if (cue.end_ms <= cue.start_ms) continue;  // squeezed out at the very end of the track
    previous_end = cue.end_ms;
    out.push_back(std::move(cue));
  }
  return out;
}

}  // namespace mediagen::engines
