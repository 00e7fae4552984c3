#pragma once
// Drum patterns per kit (General MIDI keys on channel 10), as one-bar grids of sixteenth notes.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "music_styles.hpp"

namespace mediagen::engines::music {

// One instrument's line: a step per sixteenth; 'X' accent, 'x' normal, 'o' soft, '-' ghost,
// '.' rest. Bars of three beats play the first twelve steps.
struct DrumLine {
  std::uint8_t key = 0;  // 0 = unused line
  std::string_view steps;
};
using DrumPattern = std::array<DrumLine, 4>;

struct DrumKit {
  std::vector<DrumPattern> patterns;  // the seed picks one per section
  int velocity_percent = 100;
  bool crash_and_fills = false;  // a crash on a section's first bar, a fill on its last
};

const DrumKit& drum_kit(Kit kit);

// The last beat of a section's last bar: four sixteenths, a key each (0 = rest).
const std::vector<std::array<std::uint8_t, 4>>& drum_fills();

// Velocity of a step character; 0 for a rest or anything else.
int step_velocity(char step);

}  // namespace mediagen::engines::music
