#include "mediagen/engines/audio.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <utility>

namespace mediagen::engines {
namespace {

constexpr double kFullScale = 32768.0;
constexpr int kBlockMs = 20;

double to_dbfs(double amplitude) { return 20.0 * std::log10(amplitude / kFullScale); }

std::size_t ms_to_samples(int ms, int sample_rate) {
  if (ms <= 0 || sample_rate <= 0) return 0;
  return static_cast<std::size_t>(static_cast<std::int64_t>(ms) * sample_rate / 1000);
}

}  // namespace

std::optional<double> gated_rms_dbfs(std::span<const std::int16_t> pcm, int sample_rate) {
  const std::size_t block = std::max<std::size_t>(1, ms_to_samples(kBlockMs, sample_rate));
  // Compared as mean squares, so the gate costs no square root per block.
  const double gate = std::pow(kFullScale * std::pow(10.0, kSilenceGateDbfs / 20.0), 2.0);
  double gated_sum = 0;
  std::size_t gated_samples = 0;
  for (std::size_t at = 0; at < pcm.size(); at += block) {
    const auto part = pcm.subspan(at, std::min(block, pcm.size() - at));
    double sum = 0;
    for (const auto s : part) sum += static_cast<double>(s) * s;
    if (sum / static_cast<double>(part.size()) > gate) {
      gated_sum += sum;
      gated_samples += part.size();
    }
  }
  if (gated_samples == 0) return std::nullopt;
  return to_dbfs(std::sqrt(gated_sum / static_cast<double>(gated_samples)));
}

std::optional<double> peak_dbfs(std::span<const std::int16_t> pcm) {
  int peak = 0;
  for (const auto s : pcm) peak = std::max(peak, std::abs(static_cast<int>(s)));
  if (peak == 0) return std::nullopt;
  return to_dbfs(peak);
}

double normalization_gain_db(std::span<const std::int16_t> pcm, int sample_rate, const FinishOptions& options) {
  const auto level = gated_rms_dbfs(pcm, sample_rate);
  const auto peak = peak_dbfs(pcm);
  if (!level || !peak) return 0.0;  // silence gets no gain
  double gain = std::min(options.target_dbfs - *level, options.max_gain_db);
  return std::min(gain, options.ceiling_dbfs - *peak);
}

void apply_gain(std::span<std::int16_t> pcm, double gain_db) {
  if (gain_db == 0.0) return;
  const double factor = std::pow(10.0, gain_db / 20.0);
  for (auto& s : pcm) {
    const double v = std::round(static_cast<double>(s) * factor);
    s = static_cast<std::int16_t>(std::clamp(v, -32768.0, 32767.0));
  }
}

void apply_fades(std::span<std::int16_t> pcm, int sample_rate, int fade_in_ms, int fade_out_ms) {
  const std::size_t half = pcm.size() / 2;
  const std::size_t in = std::min(ms_to_samples(fade_in_ms, sample_rate), half);
  const std::size_t out = std::min(ms_to_samples(fade_out_ms, sample_rate), half);
  // w(i) = (1 - cos(pi i / n)) / 2 for i in [0, n): starts at exactly 0 and has zero slope at both
  // ends, so the fade itself adds no audible edge.
  auto ramp = [](std::size_t i, std::size_t n) {
    return 0.5 * (1.0 - std::cos(std::numbers::pi * static_cast<double>(i) / static_cast<double>(n)));
  };
  for (std::size_t i = 0; i < in; ++i) {
    pcm[i] = static_cast<std::int16_t>(std::lround(pcm[i] * ramp(i, in)));
  }
  for (std::size_t i = 0; i < out; ++i) {
    auto& s = pcm[pcm.size() - 1 - i];
    s = static_cast<std::int16_t>(std::lround(s * ramp(i, out)));
  }
}

}  // namespace mediagen::engines
