#pragma once
// A compact description of how a voice sounds, for voice search and clone matching: computed
// once per catalogue voice (from a synthesized sample) and once per uploaded sample, compared by
// distance.
//
// The vector (kVoiceFeatureSize numbers, all finite):
//   [0, 12)   mean of MFCC 1..12 over the loud frames: the timbre (the spectral envelope, hence
//             formants and brightness); c0 (loudness) is left out so level does not matter;
//   [12, 24)  standard deviation of MFCC 1..12: how much the timbre moves while speaking;
//   24        median F0 in semitones above 55 Hz (voiced frames; 0 when none is voiced);
//   25        F0 spread: the interquartile range in semitones (intonation, "pitch range");
//   26        voiced fraction of the loud frames;
//   27        pace: syllable-like energy peaks per second of loud audio.
// Frames: 25 ms windows every 10 ms, spectra by FFTW; 26 mel bands from 80 Hz to 7.6 kHz, so
// audio at any rate from 16 kHz up is described alike. F0 by normalised autocorrelation on 40 ms
// windows, 60..400 Hz.
//
// voice_distance weighs the four groups so none dominates: timbre means most, then pitch, then
// timbre movement, then pace.
//
// Pure computation; safe from any number of threads.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace mediagen::engines {

inline constexpr std::size_t kVoiceFeatureSize = 28;
using VoiceFeatures = std::array<float, kVoiceFeatureSize>;

// nullopt when there is less than about half a second of audio above the silence gate, or the
// rate is below 16 kHz: nothing to describe.
std::optional<VoiceFeatures> voice_features(std::span<const float> mono, int sample_rate);

// Same, from 16-bit PCM.
std::optional<VoiceFeatures> voice_features(std::span<const std::int16_t> mono, int sample_rate);

// 0 for identical vectors, larger the more the voices differ.
double voice_distance(const VoiceFeatures& a, const VoiceFeatures& b);

// A similarity in (0, 1] for results: 1 / (1 + distance).
double voice_score(double distance);

}  // namespace mediagen::engines
