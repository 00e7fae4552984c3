// Character timings from word timings (src/engines/audio/char_timings.hpp) and the timings file
// built from them (write_timings_json, src/engines/speech/timings_file.cpp). Input: the first
// line is the chunk's text (any bytes), then one word per line as "offset length start_ms", then
// "@offset_ms duration_ms" lines starting a new chunk with the same text. Properties:
//   - nothing crashes or leaks, whatever the words claim (offsets past the text, inside a code
//     point, out of order, times before the chunk or after its end);
//   - the characters joined are the chunks' texts joined by one space (valid UTF-8 kept whole);
//   - starts never go back, every end is at or after its start, and nothing passes the last
//     chunk's end;
//   - the timings file is valid JSON with as many characters as the alignment.
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/audio/char_timings.hpp"
#include "mediagen/engines/speech.hpp"

namespace {

using namespace mediagen;

struct Chunk {
  std::vector<engines::WordTiming> words;
  std::int64_t offset_ms = 0;
  std::int64_t duration_ms = 1000;
};

std::int64_t number(std::string_view& line) {
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  std::int64_t v = 0;
  while (!line.empty() && line.front() >= '0' && line.front() <= '9' && v < 100'000'000) {
    v = v * 10 + (line.front() - '0');
    line.remove_prefix(1);
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view text;
  if (!lines.next(text)) return 0;
  std::vector<Chunk> chunks(1);
  std::string_view line;
  while (lines.next(line) && chunks.size() < 16) {
    if (!line.empty() && line.front() == '@') {
      line.remove_prefix(1);
      Chunk c;
      c.offset_ms = number(line);
      c.duration_ms = number(line);
      chunks.push_back(c);
      continue;
    }
    const auto offset = static_cast<std::size_t>(number(line));
    const auto length = static_cast<std::size_t>(number(line));
    chunks.back().words.push_back({offset, length, number(line)});
  }
  engines::CharTimes times;
  std::vector<engines::TimedText> timed;
  std::string expected;
  std::int64_t end_ms = 0;
  for (const auto& c : chunks) {
    const bool joined = times.size() > 0;
    engines::align_chunk({text, c.words, c.offset_ms, c.duration_ms}, joined, times);
    if (!text.empty()) expected += std::string(joined ? " " : "") + std::string(text);
    timed.push_back({text, c.words, c.offset_ms, c.duration_ms, false});
    end_ms = std::max(end_ms, c.offset_ms + c.duration_ms);
  }
  std::string joined;
  for (const auto& ch : times.characters) joined += ch;
  FUZZ_CHECK(joined == expected);
  for (std::size_t i = 0; i < times.size(); ++i) {
    FUZZ_CHECK(times.ends[i] >= times.starts[i]);
    FUZZ_CHECK(times.ends[i] <= static_cast<double>(end_ms) / 1000.0 + 1e-9);
  }
  std::string file;
  FUZZ_CHECK(engines::write_timings_json(timed, [&file](std::string_view piece) {
    file.append(piece);
    return true;
  }));
  const auto doc = nlohmann::json::parse(file, nullptr, false);
  FUZZ_CHECK(!doc.is_discarded());
  if (is_valid_utf8(text)) FUZZ_CHECK(doc["alignment"]["characters"].size() == times.size());
  return 0;
}
