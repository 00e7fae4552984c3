#pragma once
// What the music composer writes and the renderer plays: notes on a tick grid at one tempo, and
// each MIDI channel's instrument and mix. Kept as plain data so a benchmark can write the same
// notes as a Standard MIDI File.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mediagen::engines::music {

inline constexpr int kTicksPerBeat = 480;
inline constexpr int kDrumChannel = 9;  // General MIDI: drums on the tenth channel
inline constexpr int kSampleRate = 44100;

enum class Mode : std::uint8_t { major, minor, dorian, mixolydian, phrygian };

// The parts of an arrangement, one MIDI channel each (drums on kDrumChannel).
enum class Part : std::uint8_t { chords, pad, bass, lead, drums };
inline constexpr std::size_t kParts = 5;
int channel_of(Part part);

struct ChannelSetup {
  int program = -1;  // General MIDI program 0..127; -1 = the part is silent
  int volume = 100;  // CC 7
  int pan = 64;      // CC 10: 0 left .. 127 right
  int reverb = 40;   // CC 91
};

struct Note {
  std::int64_t on = 0;   // ticks from the start
  std::int64_t off = 0;  // > on
  std::uint8_t channel = 0;
  std::uint8_t key = 60;
  std::uint8_t velocity = 100;
};

struct Score {
  std::string style;        // the style's name in the table (for logs and tests)
  int bpm = 100;
  int beats_per_bar = 4;
  int tonic = 0;            // pitch class of the key, 0 = C
  Mode mode = Mode::major;
  std::array<ChannelSetup, kParts> parts{};  // indexed by Part
  std::vector<Note> notes;                   // sorted by on, then channel, then key
  std::int64_t total_ticks = 0;              // the piece ends here (every note is off by then)
};

// Sample position of a tick at the score's tempo (44.1 kHz), exact integer arithmetic.
inline std::int64_t tick_to_sample(std::int64_t tick, int bpm) {
  return tick * 60 * kSampleRate / (static_cast<std::int64_t>(bpm) * kTicksPerBeat);
}

// The PCM length whose MP3 decodes to the whole number of 1152-sample frames nearest duration_ms:
// LAME writes ceil((pcm + 1105) / 1152) frames (1105 = its encoder delay 576 + the decoder's 529);
// 64 samples of margin keep the count exact. Off by at most half a frame (13 ms).
inline std::int64_t pcm_frames_for(std::int64_t duration_ms) {
  constexpr std::int64_t kFrame = 1152, kCodecDelay = 1105;
  const std::int64_t target = duration_ms * kSampleRate / 1000;
  const std::int64_t frames = std::max<std::int64_t>(2, (target + kFrame / 2) / kFrame);
  return frames * kFrame - kCodecDelay - 64;
}

}  // namespace mediagen::engines::music
