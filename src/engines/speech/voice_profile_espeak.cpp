// The embedded engine as a clone profile's probe: what a profile sounds like, measured.
#include "mediagen/engines/speech.hpp"
#include "mediagen/engines/voice.hpp"

namespace mediagen::engines {

const std::string& profile_calibration_text() {
  static const std::string text =
      "Every morning the baker opens his shop at six, and the smell of fresh bread fills the street. "
      "People stop to talk about the weather.";
  return text;
}

std::optional<VoiceFeatures> espeak_voice_features(EspeakEngine& engine, const VoiceProfile& profile,
                                                   const std::string& text) {
  SpeechRequest request;
  request.text = text;
  request.espeak_voice = profile.espeak_voice;
  request.variant = profile.espeak_variant;
  request.profile = profile;
  auto pcm = engine.synthesize_pcm(request);
  if (!pcm) return std::nullopt;
  return voice_features(std::span<const std::int16_t>(pcm->samples), pcm->sample_rate);
}

ProfileProbe espeak_profile_probe(EspeakEngine& engine) {
  return [&engine](const VoiceProfile& p) { return espeak_voice_features(engine, p, profile_calibration_text()); };
}

}  // namespace mediagen::engines
