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

// A voice clone's profile: how the embedded speech engine speaks "like" a sample. It is a match
// of the speaker, not a copy: a catalogue voice and variant whose timbre (spectral envelope, so
// formants and brightness) is nearest the sample's, spoken at the pitch, pitch range and pace
// measured in the sample.
//
// Formant scale: espeak-ng has no parameter for it (espeak_SetParameter offers rate, pitch,
// range, volume; formants live in variant files under the system data directory, which a
// running service does not write). The base variant is chosen by timbre instead, which is where
// the formants show.
//
// Building (build_voice_profile): the candidate nearest the sample by voice_distance is the
// base; espeakPITCH, espeakRANGE and espeakRATE are then calibrated by speaking a fixed text
// with the base at a few settings and interpolating to the sample's F0 median, F0 spread and
// pace (voice_features.hpp entries 24, 25, 27). The three nearest candidates are heard again on
// the calibration text, the nearest of them is calibrated, and a calibration that moves away from
// the sample is dropped for the base's own settings. About eleven probes per profile.
#include <functional>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json_fwd.hpp>


namespace mediagen::engines {

struct VoiceProfile {
  std::string espeak_voice;    // the base voice, as SpeechRequest::espeak_voice takes it
  std::string espeak_variant;  // the base variant key, may be empty
  int pitch = 50;              // espeakPITCH 0..100 (50: the base's own)
  int pitch_range = 50;        // espeakRANGE 0..100 (0: monotone)
  int rate_wpm = 175;          // espeakRATE 80..450

  bool operator==(const VoiceProfile&) const = default;
};

// {"voice", "variant", "pitch", "range", "rate"}; the reader refuses missing or wrongly typed
// fields and clamps numbers into the engine's ranges.
nlohmann::json voice_profile_to_json(const VoiceProfile& profile);
std::optional<VoiceProfile> voice_profile_from_json(const nlohmann::json& json);

// A catalogue voice (voice + variant) and how it sounds.
struct VoiceCandidate {
  std::string espeak_voice;
  std::string espeak_variant;
  VoiceFeatures features;
};

// Speaks the calibration text with a profile and describes the audio; nullopt on failure.
using ProfileProbe = std::function<std::optional<VoiceFeatures>(const VoiceProfile&)>;

struct BuiltProfile {
  VoiceProfile profile;
  double distance = 0;  // of the profile's probe to the sample
};

// nullopt when there is no candidate or no probe of any candidate succeeded.
std::optional<BuiltProfile> build_voice_profile(const VoiceFeatures& sample, std::span<const VoiceCandidate> candidates,
                                                const ProfileProbe& probe);

class EspeakEngine;
// The embedded engine's probe: speaks a fixed English text of about five seconds.
ProfileProbe espeak_profile_probe(EspeakEngine& engine);
// Describes `text` spoken by a catalogue voice at its own settings (candidates computed on the
// fly when no stored features exist); nullopt when synthesis fails.
std::optional<VoiceFeatures> espeak_voice_features(EspeakEngine& engine, const VoiceProfile& profile,
                                                   const std::string& text);
// The text espeak_profile_probe speaks, also used for on-the-fly candidate features.
const std::string& profile_calibration_text();

}  // namespace mediagen::engines
