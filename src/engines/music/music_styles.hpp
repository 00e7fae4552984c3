#pragma once
// The music engine's vocabulary: which words of a prompt choose what, kept as tables
// (music_styles.cpp) rather than code. A prompt names at most one style (the one whose stems match
// most words; the first in table order on a tie; "default" when none matches) and any number of
// modifiers; every other word is ignored, so a prompt of only unknown words renders exactly the
// default style. A stem matches a word that starts with it ("рок" finds "рока"); a stem written
// "=хор" matches only that whole word; "drum and bass" matches those words in a row.
//
// The style gives the tempo, key and mode, the General MIDI programs of the four parts (chords,
// pad, bass, lead; drums on channel 10), how the chords are played, the drum kit, the melody's
// density, the metre and the swing. The modifiers then scale the tempo (slow, fast), shift the
// energy (calm: sparser, softer drums; energetic: busier, louder), set the mode (dark, happy),
// replace the lead and chord instrument (piano, guitar, strings, ...) or drop the drums.
// The seed (music_composer.hpp) picks nothing here: the same prompt keeps its tempo, key, mode and
// instruments in every variant.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "music_score.hpp"

namespace mediagen::engines::music {

// How the chord part plays each chord.
enum class Comp : std::uint8_t { sustain, pulse, offbeat, arpeggio, power };

// Drum kits (their patterns are in music_drums.cpp); ordered roughly from calm to busy.
enum class Kit : std::uint8_t { none, soft, pop, rock, dnb, hiphop, four_floor, jazz, epic };

struct Style {
  std::string_view name;
  std::array<std::string_view, 16> stems;  // English and Russian; unused entries empty
  int bpm;
  int tonic;  // pitch class, 0 = C
  Mode mode;
  std::array<std::uint8_t, 3> progressions;  // indices into the progression table
  int chords, pad, bass, lead;               // GM programs; -1 = part silent
  Comp comp;
  Kit kit;
  int density;        // percent of eighth-note slots the melody sounds at normal energy
  int beats_per_bar;  // 3 or 4
  int bars_per_chord;
  int swing;  // percent of a beat where the off-beat eighth falls: 50 straight, ~62 swung
  bool sevenths;
};

struct Modifier {
  std::string_view name;
  std::array<std::string_view, 14> stems;
  int tempo_percent = 100;
  int energy = 0;              // -1 calm, +1 energetic
  std::optional<Mode> mode;    // replaces the style's mode
  int instrument = -1;         // GM program replacing the chords and the lead
  bool no_drums = false;
};

// What a prompt asks for: a style with the modifiers applied.
struct Arrangement {
  Style style;
  int energy = 0;  // -1, 0 or 1
};

// Chord progressions as scale degrees (0 = the tonic), one chord per bars_per_chord bars.
using Progression = std::array<std::uint8_t, 4>;
const std::vector<Progression>& progressions();
const std::vector<Style>& styles();
const std::vector<Modifier>& modifiers();

// Never fails: any bytes give some arrangement.
Arrangement arrange(std::string_view prompt);

}  // namespace mediagen::engines::music
