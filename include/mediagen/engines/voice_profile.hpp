#pragma once
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

#include "mediagen/engines/voice_features.hpp"

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
