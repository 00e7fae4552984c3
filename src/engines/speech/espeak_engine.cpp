#include "mediagen/engines/speech.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "espeak_runtime.hpp"
#include "speech_text.hpp"
#include "speech_voice.hpp"

namespace mediagen::engines {
namespace {

int scaled(double value, double at_zero, double at_one) {
  return static_cast<int>(std::lround(at_zero + (at_one - at_zero) * value));
}

}  // namespace

EspeakParameters espeak_parameters(const VoiceSettings& settings) {
  const double speed = std::clamp(settings.speed.value_or(1.0), 0.25, 3.0);
  const double stability = std::clamp(settings.stability.value_or(0.5), 0.0, 1.0);
  const double similarity = std::clamp(settings.similarity_boost.value_or(0.75), 0.0, 1.0);
  const bool boost = settings.use_speaker_boost.value_or(true);
  EspeakParameters p{};
  p.rate_wpm = std::clamp(static_cast<int>(std::lround(175.0 * speed)), 80, 450);
  // similarity 0 -> 20, 0.75 -> 50 (the voice's own pitch), 1 -> 60.
  p.pitch = scaled(similarity, 20.0, 60.0);
  // stability 0 -> 75 (lively), 0.5 -> 50 (the voice's own range), 1 -> 25 (flat).
  p.pitch_range = scaled(stability, 75.0, 25.0);
  p.volume = boost ? 100 : 75;
  return p;
}

EspeakEngine::EspeakEngine(EspeakEngineOptions options) : options_(options) {
  detail::EspeakRuntime::instance();  // start espeak-ng and a first helper now, not on the first request
}

boost::system::result<SpeechPcm, EngineFailure> EspeakEngine::synthesize_pcm(const SpeechRequest& request) {
  const auto& text = request.text;
  if (!detail::is_valid_utf8(text)) return EngineFailure::technical("text is not valid UTF-8");
  if (std::memchr(text.data(), '\0', text.size()) != nullptr) return EngineFailure::technical("text holds a NUL character");
  if (detail::blank(text)) return EngineFailure::technical("text is empty: nothing to speak");

  auto& runtime = detail::EspeakRuntime::instance();
  if (!runtime.start_error().empty()) return EngineFailure::technical(runtime.start_error());
  const auto& profile = request.profile;
  auto voice = detail::resolve_voice(runtime.voices(), runtime.variants(),
                                     profile ? profile->espeak_voice : request.espeak_voice,
                                     profile ? profile->espeak_variant : request.variant, request.language_code);
  if (!voice) return voice.error();

  EspeakParameters parameters = espeak_parameters(request.settings);
  if (profile) {
    const double speed = std::clamp(request.settings.speed.value_or(1.0), 0.25, 3.0);
    parameters.rate_wpm = std::clamp(static_cast<int>(std::lround(profile->rate_wpm * speed)), 80, 450);
    parameters.pitch = std::clamp(profile->pitch, 0, 100);
    parameters.pitch_range = std::clamp(profile->pitch_range, 0, 100);
  }
  const detail::SynthJob job{&text, std::move(*voice), parameters};
  auto synthesised = runtime.synthesize(job);
  if (!synthesised) return synthesised.error();

  SpeechPcm pcm;
  pcm.sample_rate = synthesised->sample_rate;
  pcm.words = detail::map_word_events(text, synthesised->words, 0);
  pcm.samples = std::move(synthesised->pcm);
  return pcm;
}

boost::system::result<Audio, EngineFailure> EspeakEngine::synthesize(const SpeechRequest& request) {
  auto pcm = synthesize_pcm(request);
  if (!pcm) return pcm.error();
  // Encoding runs here, in the caller's thread, in parallel with other callers.
  auto mp3 = encode_mp3(pcm->samples, pcm->sample_rate, options_.mp3);
  if (!mp3) return mp3.error();

  Audio audio;
  audio.mp3 = std::move(mp3->bytes);
  audio.sample_rate = mp3->sample_rate;
  audio.duration_ms = mp3->duration_ms;
  audio.words = std::move(pcm->words);
  for (auto& w : audio.words) w.start_ms += mp3->delay_ms;
  return audio;
}

}  // namespace mediagen::engines
