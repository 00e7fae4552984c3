#pragma once
// The music composer: an arrangement (from the prompt, music_styles.hpp), a length and a seed in,
// a score out. The prompt fixes tempo, metre, key, mode and instruments; the seed picks the chord
// progressions (from the style's set), the voicings, the comping and bass rhythms, the drum
// patterns and fills, and the melody. The form is intro / A / B / A / B ... / outro, in sections
// of four or eight bars; a section that comes back plays the same melody, as songs do.
// Pure: no I/O, no shared state; the same inputs give the same score on every platform (its own
// PRNG, no standard distributions).
#include <cstdint>

#include "music_score.hpp"
#include "music_styles.hpp"

namespace mediagen::engines::music {

// A small fixed PRNG (splitmix64): the same sequence everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  int below(int n);          // 0..n-1 (n > 0)
  int between(int lo, int hi);  // lo..hi inclusive
  bool chance(int percent);  // true with probability percent / 100

 private:
  std::uint64_t state_;
};

// total_samples: the length at 44.1 kHz; every note ends by then.
Score compose(const Arrangement& arrangement, std::int64_t total_samples, std::uint64_t seed);

}  // namespace mediagen::engines::music
