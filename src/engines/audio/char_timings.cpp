#include "mediagen/engines/audio/char_timings.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/core/utf8.hpp"

namespace mediagen::engines {
namespace {

struct Anchor {
  std::size_t byte = 0;
  std::int64_t ms = 0;
};

// Milliseconds to seconds, kept to the millisecond so the JSON stays short.
double seconds(double ms) { return std::round(ms) / 1000.0; }

// Spreads the code points of text[from, to) evenly over [start_ms, end_ms].
void spread(std::string_view text, std::size_t from, std::size_t to, double start_ms, double end_ms, CharTimes& out) {
  std::vector<std::pair<std::size_t, std::size_t>> points;
  for (std::size_t pos = from; pos < to;) {
    const auto cp = decode_utf8(text.substr(pos, to - pos));
    const std::size_t len = cp ? cp->length : 1;
    points.emplace_back(pos, len);
    pos += len;
  }
  const double step = points.empty() ? 0 : (end_ms - start_ms) / static_cast<double>(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) {
    out.characters.emplace_back(text.substr(points[k].first, points[k].second));
    out.starts.push_back(seconds(start_ms + step * static_cast<double>(k)));
    out.ends.push_back(seconds(start_ms + step * static_cast<double>(k + 1)));
  }
}

// The timed words' starts in text order, on the whole audio's time line, inside the chunk and
// never going back; a word whose start is not a code point boundary is skipped.
std::vector<Anchor> anchors_of(const ChunkSpeech& chunk) {
  std::vector<WordTiming> words(chunk.words.begin(), chunk.words.end());
  std::stable_sort(words.begin(), words.end(), [](const auto& a, const auto& b) { return a.text_offset < b.text_offset; });
  std::vector<Anchor> anchors;
  const std::int64_t end = chunk.offset_ms + std::max<std::int64_t>(0, chunk.duration_ms);
  std::int64_t last = chunk.offset_ms;
  for (const auto& w : words) {
    if (w.text_offset >= chunk.text.size()) break;
    if (!anchors.empty() && anchors.back().byte == w.text_offset) continue;
    if (is_utf8_continuation(static_cast<unsigned char>(chunk.text[w.text_offset]))) continue;
    last = std::clamp(chunk.offset_ms + w.start_ms, last, end);
    anchors.push_back({w.text_offset, last});
  }
  return anchors;
}

}  // namespace

void align_chunk(const ChunkSpeech& chunk, bool joined, CharTimes& out) {
  const auto start = static_cast<double>(chunk.offset_ms);
  const double end = start + static_cast<double>(std::max<std::int64_t>(0, chunk.duration_ms));
  if (joined) spread(" ", 0, 1, start, start, out);
  const auto anchors = anchors_of(chunk);
  std::size_t from = 0;
  double from_ms = start;
  for (const auto& a : anchors) {
    spread(chunk.text, from, a.byte, from_ms, static_cast<double>(a.ms), out);
    from = a.byte;
    from_ms = static_cast<double>(a.ms);
  }
  spread(chunk.text, from, chunk.text.size(), from_ms, end, out);
}

std::string alignment_json(const CharTimes& times, std::size_t from, std::size_t to) {
  to = std::min(to, times.size());
  from = std::min(from, to);
  nlohmann::json characters = nlohmann::json::array();
  nlohmann::json starts = nlohmann::json::array();
  nlohmann::json ends = nlohmann::json::array();
  for (std::size_t i = from; i < to; ++i) {
    characters.push_back(times.characters[i]);
    starts.push_back(times.starts[i]);
    ends.push_back(times.ends[i]);
  }
  return to_json_text(nlohmann::ordered_json{{"characters", std::move(characters)},
                                             {"character_start_times_seconds", std::move(starts)},
                                             {"character_end_times_seconds", std::move(ends)}});
}

}  // namespace mediagen::engines
