// The music engine's prompt reading and composer (src/engines/music/music_styles.hpp,
// music_composer.hpp) on any bytes: the first line is the prompt, the bytes after it the seed and
// the length. Properties: the arrangement is a style from the table with a tempo in 50..180 bpm;
// the score's notes are valid MIDI, start before they end, end within the piece, sound only on
// channels that have an instrument, and something sounds until the end.
#include <algorithm>
#include <string_view>

#include "engines/music/music_composer.hpp"
#include "engines/music/music_styles.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mediagen::engines::music;
  mediagen::fuzz::Lines lines{mediagen::fuzz::as_text(data, size)};
  std::string_view prompt, rest;
  lines.next(prompt);
  lines.next(rest);
  std::uint64_t seed = 0;
  for (const char c : rest.substr(0, 8)) seed = seed << 8 | static_cast<unsigned char>(c);
  // 0.5 s .. ~30 s: long enough for every section kind, short enough to keep runs fast.
  const std::int64_t frames = kSampleRate / 2 + static_cast<std::int64_t>(seed % 30) * kSampleRate;

  const Arrangement arrangement = arrange(prompt);
  FUZZ_CHECK(std::any_of(styles().begin(), styles().end(),
                         [&](const Style& s) { return s.name == arrangement.style.name; }));
  FUZZ_CHECK(arrangement.style.bpm >= 50 && arrangement.style.bpm <= 180);
  FUZZ_CHECK(arrangement.energy >= -1 && arrangement.energy <= 1);

  const Score score = compose(arrangement, frames, seed);
  FUZZ_CHECK(score.total_ticks > 0 && tick_to_sample(score.total_ticks, score.bpm) <= frames);
  std::int64_t last_off = 0;
  for (const auto& note : score.notes) {
    FUZZ_CHECK(note.on >= 0 && note.on < note.off && note.off <= score.total_ticks);
    FUZZ_CHECK(note.key <= 127 && note.velocity >= 1 && note.velocity <= 127);
    bool playing = false;
    for (std::size_t p = 0; p < kParts; ++p) {
      playing = playing || (channel_of(static_cast<Part>(p)) == note.channel && score.parts[p].program >= 0);
    }
    FUZZ_CHECK(playing);
    last_off = std::max(last_off, note.off);
  }
  FUZZ_CHECK(last_off == score.total_ticks);
  return 0;
}
