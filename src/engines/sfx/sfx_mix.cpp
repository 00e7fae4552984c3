// Mixing a plan's layers and shaping the mix by its modifiers (distance, echo, metallic ring,
// loudness drive), plus the shared event helpers of sfx_dsp.hpp.
#include <algorithm>
#include <array>
#include <cmath>

#include "sfx_recipes.hpp"

namespace mediagen::engines::sfx {

void add_modes(std::span<float> out, std::size_t start, std::span<const Mode> modes, double gain) {
  for (const auto& mode : modes) {
    if (mode.hz <= 0 || mode.hz >= kRate * 0.45 || mode.decay_s <= 0) continue;
    // A rotating phasor: one complex multiply per sample instead of sin() and exp().
    const double w = kTwoPi * mode.hz / kRate, r = std::exp(-1.0 / (mode.decay_s * kRate));
    const double c = r * std::cos(w), s = r * std::sin(w);
    double re = 0, im = mode.amp * gain;
    const std::size_t end = std::min(out.size(), start + seconds_to_samples(mode.decay_s * 6.9));
    for (std::size_t i = start; i < end; ++i) {
      out[i] += static_cast<float>(im);
      const double nre = re * c - im * s;
      im = re * s + im * c;
      re = nre;
    }
  }
}

void add_noise_burst(std::span<float> out, std::size_t start, double attack_s, double decay_s, double gain,
                     Biquad filter, Rng& rng) {
  const std::size_t attack = seconds_to_samples(attack_s);
  const std::size_t end = std::min(out.size(), start + attack + seconds_to_samples(decay_s * 5.0));
  const double fall = std::exp(-1.0 / (std::max(decay_s, 1e-4) * kRate));
  double env = 1.0;
  for (std::size_t i = start; i < end; ++i) {
    const std::size_t k = i - start;
    double level = 1.0;
    if (k < attack) {
      level = static_cast<double>(k) / static_cast<double>(attack);
    } else {
      level = env;
      env *= fall;
    }
    out[i] += static_cast<float>(gain * level * filter.process(rng.bipolar()));
  }
}

namespace {

void normalize_peak(std::span<float> x, double peak) {
  float top = 0;
  for (float v : x) top = std::max(top, std::abs(v));
  if (top <= 0 || !std::isfinite(top)) return;
  const auto k = static_cast<float>(peak / top);
  for (auto& v : x) v *= k;
}

// A small Schroeder reverb (four damped combs into two all-passes): room, not a hall.
void add_reverb(std::span<float> x, double wet) {
  if (wet <= 0) return;
  constexpr std::array<std::size_t, 4> kCombs = {1557, 1617, 1491, 1422};
  constexpr std::array<std::size_t, 2> kAllpasses = {225, 556};
  std::vector<float> sum(x.size(), 0.0f);
  for (const auto delay : kCombs) {
    std::vector<float> line(delay, 0.0f);
    float damp = 0;
    for (std::size_t i = 0, at = 0; i < x.size(); ++i, at = (at + 1 == delay ? 0 : at + 1)) {
      const float y = line[at];
      damp = 0.6f * y + 0.4f * damp;  // high frequencies die first, as in a room
      line[at] = x[i] + 0.84f * damp;
      sum[i] += y * 0.25f;
    }
  }
  for (const auto delay : kAllpasses) {
    std::vector<float> line(delay, 0.0f);
    for (std::size_t i = 0, at = 0; i < sum.size(); ++i, at = (at + 1 == delay ? 0 : at + 1)) {
      const float b = line[at];
      line[at] = sum[i] + 0.5f * b;
      sum[i] = b - sum[i];
    }
  }
  const auto dry = static_cast<float>(1.0 - 0.5 * wet), w = static_cast<float>(wet);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = dry * x[i] + w * sum[i];
}

// A feedback comb tuned high: struck metal rings at a few strong partials.
void add_metal_ring(std::span<float> x, double pitch) {
  const auto delay = static_cast<std::size_t>(std::clamp(kRate / (1400.0 * pitch), 8.0, 400.0));
  std::vector<float> line(delay, 0.0f);
  for (std::size_t i = 0, at = 0; i < x.size(); ++i, at = (at + 1 == delay ? 0 : at + 1)) {
    const float y = x[i] + 0.82f * line[at];
    line[at] = y;
    x[i] = 0.5f * x[i] + 0.5f * y;
  }
}

// Far away: the air takes the highs, the room blurs the attacks.
void apply_distance(std::span<float> x, double distance) {
  if (distance <= 0) return;
  auto a = Biquad::lowpass(4000.0 - 2900.0 * distance), b = Biquad::lowpass(4000.0 - 2900.0 * distance);
  for (auto& v : x) v = static_cast<float>(b.process(a.process(v)));
}

// Loud: driven into a soft saturation, so it is louder for the same peak.
void apply_drive(std::span<float> x, double gain_db) {
  if (gain_db <= 0) return;
  const double k = 1.0 + gain_db / 2.0;
  normalize_peak(x, 1.0);
  for (auto& v : x) v = static_cast<float>(std::tanh(k * v) / std::tanh(k));
}

}  // namespace

std::vector<float> render_plan(const Plan& plan, std::size_t samples, std::uint64_t seed) {
  constexpr std::array<double, kMaxSfxLayers> kLayerPeaks = {1.0, 0.7, 0.55};
  std::vector<float> mix(samples, 0.0f);
  std::vector<float> layer(samples);
  Rng rng(seed);
  double echo = plan.shape.echo;
  for (std::size_t i = 0; i < plan.layers.size(); ++i) {
    Rng layer_rng = rng.fork();
    std::fill(layer.begin(), layer.end(), 0.0f);
    plan.layers[i]->render(layer, plan.shape, layer_rng);
    normalize_peak(layer, kLayerPeaks[std::min(i, kLayerPeaks.size() - 1)]);
    for (std::size_t k = 0; k < samples; ++k) mix[k] += layer[k];
    echo = std::max(echo, plan.layers[i]->echo);
  }
  if (plan.shape.metallic) add_metal_ring(mix, plan.shape.pitch);
  apply_distance(mix, plan.shape.distance);
  add_reverb(mix, std::min(0.9, echo + 0.5 * plan.shape.distance - (plan.shape.close ? 0.1 : 0.0)));
  apply_drive(mix, plan.shape.gain_db);
  normalize_peak(mix, 1.0);
  return mix;
}

}  // namespace mediagen::engines::sfx
