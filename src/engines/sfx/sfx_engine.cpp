#include "mediagen/engines/sfx.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mediagen/engines/audio.hpp"
#include "sfx_recipes.hpp"

namespace mediagen::engines {
namespace {

// MPEG-1 Layer III at 44.1 kHz: 1152 samples a frame. LAME writes ceil(n / 1152) + 1 frames for
// n > 0 input samples (its delay and the flush need the extra one), so n = (frames - 1) * 1152
// gives exactly `frames` frames, and the decoded stream is frames * 1152 samples long.
constexpr std::int64_t kFrameSamples = 1152;

// The PCM length whose MP3 decodes closest to duration_ms (within half a frame, 13 ms).
std::size_t pcm_samples_for(std::int64_t duration_ms) {
  const std::int64_t target = duration_ms * kSfxSampleRate / 1000;
  const std::int64_t frames = std::max<std::int64_t>(2, (target + kFrameSamples / 2) / kFrameSamples);
  return static_cast<std::size_t>((frames - 1) * kFrameSamples);
}

// Peak of an unmodified render before encoding; modifiers move it within the bounds below.
constexpr double kPeakDbfs = -4.0;
constexpr double kMaxPeakDbfs = -2.0;   // MP3 may overshoot by about half a dB: stays under -1
constexpr double kMinPeakDbfs = -22.0;  // quiet + distant + light stays audible
// Continuous sounds (a siren, an engine) would sit far louder than sparse ones at the same peak:
// their RMS is held at this (moved by the modifiers' gain like the peak).
constexpr double kMaxRmsDbfs = -16.0;
constexpr int kFadeInMs = 3;            // an explosion may start hard, but not with a click
constexpr int kFadeOutMs = 60;

double rms_dbfs(const std::vector<float>& x) {
  double sum = 0;
  for (float v : x) sum += static_cast<double>(v) * v;
  return sum > 0 ? 10.0 * std::log10(sum / static_cast<double>(x.size())) : -200.0;
}

}  // namespace

boost::system::result<SfxPcm, EngineFailure> sfx_render(const PromptRequest& request) {
  const auto plan = sfx::plan_for(request.prompt);
  const std::int64_t duration_ms = request.duration_ms.value_or(plan.default_ms);
  if (duration_ms < kSfxMinDurationMs || duration_ms > kSfxMaxDurationMs) {
    return EngineFailure::technical("sfx: duration " + std::to_string(duration_ms) + " ms is outside " +
                                    std::to_string(kSfxMinDurationMs) + ".." + std::to_string(kSfxMaxDurationMs));
  }
  const auto mix = sfx::render_plan(plan, pcm_samples_for(duration_ms), request.seed);
  const double peak_db = std::clamp(kPeakDbfs + plan.shape.gain_db, kMinPeakDbfs, kMaxPeakDbfs);
  const double rms_room_db = kMaxRmsDbfs + plan.shape.gain_db - rms_dbfs(mix);  // mix peaks at 1
  const double scale = 32767.0 * std::pow(10.0, std::min(peak_db, rms_room_db) / 20.0);
  SfxPcm pcm;
  pcm.duration_ms = duration_ms;
  pcm.samples.resize(mix.size());
  std::transform(mix.begin(), mix.end(), pcm.samples.begin(), [scale](float v) {
    const double s = std::isfinite(v) ? std::clamp(static_cast<double>(v), -1.0, 1.0) : 0.0;
    return static_cast<std::int16_t>(std::lround(s * scale));
  });
  apply_fades(pcm.samples, kSfxSampleRate, kFadeInMs, kFadeOutMs);
  return pcm;
}

boost::system::result<Audio, EngineFailure> SfxEngine::generate(const PromptRequest& request) {
  auto pcm = sfx_render(request);
  if (!pcm) return pcm.error();
  auto stream = encode_mp3(pcm->samples, kSfxSampleRate, kSfxMp3Options);
  if (!stream) return stream.error();
  return Audio{std::move(stream->bytes), stream->sample_rate, stream->duration_ms, {}};
}

}  // namespace mediagen::engines
