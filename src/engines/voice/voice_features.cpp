#include "mediagen/engines/voice.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "voice_spectra.hpp"

namespace mediagen::engines {
namespace {

using detail::Fft;

constexpr int kMelBands = 26;
constexpr int kCoefficients = 12;  // MFCC 1..12
constexpr double kMelLowHz = 80.0;
constexpr double kMelHighHz = 7600.0;
constexpr double kGateBelowLoudestDb = 40.0;
constexpr double kGateAbsoluteDb = -60.0;

double hz_to_mel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double mel_to_hz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

// Triangular mel filters over the bins of an FFT of `size` at `rate`: [band][bin] weights.
std::vector<std::vector<double>> mel_filters(std::size_t size, int rate) {
  const std::size_t bins = size / 2 + 1;
  const double high = std::min(kMelHighHz, rate / 2.0);
  std::vector<double> edges(kMelBands + 2);
  for (int i = 0; i < kMelBands + 2; ++i) {
    const double mel = hz_to_mel(kMelLowHz) + (hz_to_mel(high) - hz_to_mel(kMelLowHz)) * i / (kMelBands + 1);
    edges[static_cast<std::size_t>(i)] = mel_to_hz(mel) * static_cast<double>(size) / rate;
  }
  std::vector<std::vector<double>> filters(kMelBands, std::vector<double>(bins, 0.0));
  for (std::size_t b = 0; b < static_cast<std::size_t>(kMelBands); ++b) {
    for (std::size_t k = 0; k < bins; ++k) {
      const double x = static_cast<double>(k);
      if (x > edges[b] && x < edges[b + 1]) filters[b][k] = (x - edges[b]) / (edges[b + 1] - edges[b]);
      else if (x >= edges[b + 1] && x < edges[b + 2]) filters[b][k] = (edges[b + 2] - x) / (edges[b + 2] - edges[b + 1]);
    }
  }
  return filters;
}

// MFCC 1..12 of one windowed frame's power spectrum (DCT-II, orthonormal).
std::array<double, kCoefficients> mfcc(const std::vector<double>& power, const std::vector<std::vector<double>>& filters) {
  std::array<double, kMelBands> logs{};
  for (std::size_t b = 0; b < filters.size(); ++b) {
    double e = 0;
    for (std::size_t k = 0; k < power.size(); ++k) e += filters[b][k] * power[k];
    logs[b] = std::log(e + 1e-10);
  }
  std::array<double, kCoefficients> c{};
  for (int n = 1; n <= kCoefficients; ++n) {
    double sum = 0;
    for (int b = 0; b < kMelBands; ++b) sum += logs[static_cast<std::size_t>(b)] * std::cos(std::numbers::pi * n * (b + 0.5) / kMelBands);
    c[static_cast<std::size_t>(n - 1)] = sum * std::sqrt(2.0 / kMelBands);
  }
  return c;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const auto at = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(at), v.end());
  return v[at];
}

// Syllable-like peaks of the loud frames' level (dB, one per 10 ms hop): a peak stands 3 dB
// above the lowest of the 150 ms before it and is the highest within 100 ms either side.
double pace(const std::vector<double>& level_db, const std::vector<bool>& loud) {
  int peaks = 0, loud_frames = 0;
  for (std::size_t t = 0; t < level_db.size(); ++t) {
    if (!loud[t]) continue;
    ++loud_frames;
    const std::size_t a = t >= 10 ? t - 10 : 0, b = std::min(level_db.size(), t + 11);
    const double top = *std::max_element(level_db.begin() + static_cast<long>(a), level_db.begin() + static_cast<long>(b));
    const std::size_t c = t >= 15 ? t - 15 : 0;
    const double low = *std::min_element(level_db.begin() + static_cast<long>(c), level_db.begin() + static_cast<long>(t + 1));
    if (level_db[t] == top && level_db[t] - low >= 3.0) ++peaks;
  }
  return loud_frames == 0 ? 0.0 : peaks / (loud_frames * 0.01);
}

void mean_and_spread(const std::vector<std::array<double, kCoefficients>>& frames, VoiceFeatures& out) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(kCoefficients); ++i) {
    double sum = 0, squares = 0;
    for (const auto& f : frames) {
      sum += f[i];
      squares += f[i] * f[i];
    }
    const double n = static_cast<double>(frames.size());
    const double mean = sum / n;
    out[i] = static_cast<float>(mean);
    out[kCoefficients + i] = static_cast<float>(std::sqrt(std::max(0.0, squares / n - mean * mean)));
  }
}

}  // namespace

std::optional<VoiceFeatures> voice_features(std::span<const float> input, int sample_rate) {
  if (sample_rate < 16000) return std::nullopt;
  // Brought to one peak level first, so how loud a sample was recorded does not matter.
  float peak = 0;
  for (const float s : input) peak = std::max(peak, std::isfinite(s) ? std::abs(s) : 0.0f);
  if (peak <= 0) return std::nullopt;
  std::vector<float> normalised(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) normalised[i] = std::isfinite(input[i]) ? input[i] * (0.5f / peak) : 0.0f;
  const std::span<const float> mono(normalised);
  const auto window = static_cast<std::size_t>(sample_rate * 0.025);
  const auto hop = static_cast<std::size_t>(sample_rate * 0.010);
  if (mono.size() < window) return std::nullopt;
  std::size_t size = 256;
  while (size < window) size *= 2;
  Fft fft(size);
  const auto filters = mel_filters(size, sample_rate);
  detail::PitchTracker pitch(sample_rate);

  std::vector<double> level_db, frame(size);
  std::vector<std::array<double, kCoefficients>> coefficients;
  std::vector<double> semitones;
  for (std::size_t start = 0; start + window <= mono.size(); start += hop) {
    double energy = 0;
    for (std::size_t i = 0; i < window; ++i) energy += static_cast<double>(mono[start + i]) * mono[start + i];
    level_db.push_back(10.0 * std::log10(energy / static_cast<double>(window) + 1e-12));
  }
  const double loudest = level_db.empty() ? -120.0 : *std::max_element(level_db.begin(), level_db.end());
  const double gate = std::max(loudest - kGateBelowLoudestDb, kGateAbsoluteDb);
  std::vector<bool> loud(level_db.size());
  int voiced = 0, loud_count = 0;
  for (std::size_t t = 0; t < level_db.size(); ++t) {
    loud[t] = level_db[t] > gate;
    if (!loud[t]) continue;
    ++loud_count;
    const std::size_t start = t * hop;
    std::fill(frame.begin(), frame.end(), 0.0);
    for (std::size_t i = 0; i < window; ++i) {
      const double pre = mono[start + i] - (start + i > 0 ? 0.97 * mono[start + i - 1] : 0.0);
      frame[i] = pre * (0.54 - 0.46 * std::cos(2.0 * std::numbers::pi * static_cast<double>(i) / (window - 1)));
    }
    coefficients.push_back(mfcc(fft.power(frame), filters));
    if (auto f0 = pitch.f0(mono, start)) {
      ++voiced;
      semitones.push_back(12.0 * std::log2(*f0 / 55.0));
    }
  }
  if (loud_count < 50) return std::nullopt;  // under half a second of sound

  VoiceFeatures out{};
  mean_and_spread(coefficients, out);
  out[24] = static_cast<float>(quantile(semitones, 0.5));
  out[25] = static_cast<float>(quantile(semitones, 0.75) - quantile(semitones, 0.25));
  out[26] = static_cast<float>(static_cast<double>(voiced) / loud_count);
  out[27] = static_cast<float>(pace(level_db, loud));
  return out;
}

std::optional<VoiceFeatures> voice_features(std::span<const std::int16_t> mono, int sample_rate) {
  std::vector<float> samples(mono.size());
  for (std::size_t i = 0; i < mono.size(); ++i) samples[i] = static_cast<float>(mono[i]) / 32768.0f;
  return voice_features(std::span<const float>(samples), sample_rate);
}

double voice_distance(const VoiceFeatures& a, const VoiceFeatures& b) {
  // (weight / typical spread between voices)^2 per group: timbre means, timbre movement, pitch
  // median, pitch spread, voiced fraction, pace.
  const auto term = [&](std::size_t i, double weight, double scale) {
    const double d = (static_cast<double>(a[i]) - b[i]) / scale;
    return weight * d * d;
  };
  double sum = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(kCoefficients); ++i) {
    sum += term(i, 1.0, 1.5);
    sum += term(kCoefficients + i, 0.5, 0.75);
  }
  sum += term(24, 4.0, 2.0);
  sum += term(25, 1.0, 2.0);
  sum += term(26, 0.5, 0.15);
  sum += term(27, 0.5, 1.0);
  return std::sqrt(sum);
}

double voice_score(double distance) { return 1.0 / (1.0 + std::max(0.0, distance)); }

}  // namespace mediagen::engines
