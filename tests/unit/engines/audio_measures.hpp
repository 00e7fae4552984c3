#pragma once
// Test helper: measures taken on decoded audio, so tests check what a listener would hear rather
// than the parameters an engine chose. Short-time spectra by FFTW (Hann window, 2048 samples,
// hop 1024); frames quieter than kQuietDbfs are left out of the spectral measures.
#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "mp3_decode.hpp"

namespace mediagen::engines::testing {

inline constexpr std::size_t kFrame = 2048;
inline constexpr std::size_t kHop = 1024;
inline constexpr double kQuietDbfs = -50.0;

struct Mono {
  std::vector<float> samples;  // -1..1
  long rate = 0;
};

inline Mono to_mono(const DecodedMp3& d) {
  Mono m{{}, d.rate};
  const auto ch = static_cast<std::size_t>(std::max(1, d.channels));
  m.samples.reserve(d.samples.size() / ch);
  for (std::size_t i = 0; i + ch <= d.samples.size(); i += ch) {
    float sum = 0;
    for (std::size_t c = 0; c < ch; ++c) sum += static_cast<float>(d.samples[i + c]) / 32768.0f;
    m.samples.push_back(sum / static_cast<float>(ch));
  }
  return m;
}

// Largest absolute sample of the decoded stream (all channels), dBFS; -inf for silence.
inline double peak_dbfs(const DecodedMp3& d) {
  int peak = 0;
  for (auto s : d.samples) peak = std::max(peak, std::abs(static_cast<int>(s)));
  return peak == 0 ? -INFINITY : 20.0 * std::log10(peak / 32768.0);
}

inline double rms_dbfs(const std::vector<float>& x) {
  if (x.empty()) return -INFINITY;
  double sum = 0;
  for (float v : x) sum += static_cast<double>(v) * v;
  const double r = std::sqrt(sum / static_cast<double>(x.size()));
  return r == 0 ? -INFINITY : 20.0 * std::log10(r);
}

// Power spectra (bins 0..kFrame/2) of the frames louder than kQuietDbfs.
inline std::vector<std::vector<double>> power_frames(const Mono& m, bool keep_quiet = false) {
  std::vector<std::vector<double>> out;
  std::vector<double> in(kFrame);
  std::vector<fftw_complex> spec(kFrame / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(static_cast<int>(kFrame), in.data(), spec.data(), FFTW_ESTIMATE);
  for (std::size_t start = 0; start + kFrame <= m.samples.size(); start += kHop) {
    std::vector<float> slice(m.samples.begin() + static_cast<long>(start),
                             m.samples.begin() + static_cast<long>(start + kFrame));
    if (!keep_quiet && rms_dbfs(slice) < kQuietDbfs) continue;
    for (std::size_t i = 0; i < kFrame; ++i) {
      const double w = 0.5 - 0.5 * std::cos(2.0 * M_PI * static_cast<double>(i) / (kFrame - 1));
      in[i] = w * slice[i];
    }
    fftw_execute(plan);
    std::vector<double> p(kFrame / 2 + 1);
    for (std::size_t k = 0; k < p.size(); ++k) p[k] = spec[k][0] * spec[k][0] + spec[k][1] * spec[k][1];
    out.push_back(std::move(p));
  }
  fftw_destroy_plan(plan);
  return out;
}

inline std::size_t bin_of(double hz, long rate) {
  return static_cast<std::size_t>(std::lround(hz * kFrame / static_cast<double>(rate)));
}

// Mean over loud frames of the spectral flatness (geometric over arithmetic mean of the power,
// 100 Hz..min(10 kHz, Nyquist)): near 1 for white noise, near 0 for a pure tone.
inline double spectral_flatness(const Mono& m) {
  const auto frames = power_frames(m);
  if (frames.empty()) return 0;
  const std::size_t lo = bin_of(100, m.rate), hi = std::min(bin_of(10000, m.rate), kFrame / 2);
  double total = 0;
  for (const auto& p : frames) {
    double log_sum = 0, sum = 0;
    for (std::size_t k = lo; k < hi; ++k) {
      log_sum += std::log(p[k] + 1e-12);
      sum += p[k] + 1e-12;
    }
    const double n = static_cast<double>(hi - lo);
    total += std::exp(log_sum / n) / (sum / n);
  }
  return total / static_cast<double>(frames.size());
}

// How far the strongest bin of the long-term spectrum stands above the median bin, in dB: a
// clear pitch stands tens of dB above, noise a few.
inline double tonal_peak_db(const Mono& m) {
  const auto frames = power_frames(m);
  if (frames.empty()) return 0;
  std::vector<double> avg(kFrame / 2 + 1, 0.0);
  for (const auto& p : frames)
    for (std::size_t k = 0; k < avg.size(); ++k) avg[k] += p[k];
  const std::size_t lo = bin_of(100, m.rate), hi = std::min(bin_of(10000, m.rate), kFrame / 2);
  std::vector<double> band(avg.begin() + static_cast<long>(lo), avg.begin() + static_cast<long>(hi));
  const double peak = *std::max_element(band.begin(), band.end());
  std::nth_element(band.begin(), band.begin() + static_cast<long>(band.size() / 2), band.end());
  return 10.0 * std::log10((peak + 1e-12) / (band[band.size() / 2] + 1e-12));
}

// Onsets per second: peaks of the half-wave rectified log-spectral flux above a moving median.
inline double onset_rate(const Mono& m) {
  const auto frames = power_frames(m, true);
  if (frames.size() < 3 || m.rate == 0) return 0;
  std::vector<double> flux(frames.size(), 0.0);
  const auto energy = [](const std::vector<double>& p) { return std::accumulate(p.begin(), p.end(), 0.0); };
  for (std::size_t t = 1; t < frames.size(); ++t) {
    // A note's end (its click) is no onset: only frames that grow louder count.
    if (energy(frames[t]) <= energy(frames[t - 1])) continue;
    for (std::size_t k = 1; k < frames[t].size(); ++k) {
      const double d = std::log1p(1e3 * frames[t][k]) - std::log1p(1e3 * frames[t - 1][k]);
      flux[t] += std::max(0.0, d);
    }
  }
  const double mean = std::accumulate(flux.begin(), flux.end(), 0.0) / static_cast<double>(flux.size());
  int onsets = 0;
  for (std::size_t t = 1; t + 1 < flux.size(); ++t) {
    const std::size_t a = t >= 8 ? t - 8 : 0, b = std::min(flux.size(), t + 9);
    std::vector<double> window(flux.begin() + static_cast<long>(a), flux.begin() + static_cast<long>(b));
    std::nth_element(window.begin(), window.begin() + static_cast<long>(window.size() / 2), window.end());
    const double threshold = window[window.size() / 2] + 0.5 * mean;
    if (flux[t] > threshold && flux[t] >= flux[t - 1] && flux[t] > flux[t + 1]) ++onsets;
  }
  const double seconds = static_cast<double>(m.samples.size()) / static_cast<double>(m.rate);
  return onsets / seconds;
}

// Pitch-class profile (C, C#, ... B) of the whole piece, 55 Hz..5 kHz, summing to 1.
inline std::array<double, 12> chroma(const Mono& m) {
  std::array<double, 12> c{};
  for (const auto& p : power_frames(m)) {
    for (std::size_t k = bin_of(55, m.rate); k < std::min(bin_of(5000, m.rate), p.size()); ++k) {
      const double hz = static_cast<double>(k) * static_cast<double>(m.rate) / kFrame;
      const long midi = std::lround(69.0 + 12.0 * std::log2(hz / 440.0));
      c[static_cast<std::size_t>(((midi % 12) + 12) % 12)] += p[k];
    }
  }
  const double sum = std::accumulate(c.begin(), c.end(), 0.0);
  if (sum > 0)
    for (auto& v : c) v /= sum;
  return c;
}

// Half the L1 distance of two profiles: 0 same, 1 disjoint.
inline double chroma_distance(const std::array<double, 12>& a, const std::array<double, 12>& b) {
  double d = 0;
  for (std::size_t i = 0; i < 12; ++i) d += std::abs(a[i] - b[i]);
  return d / 2;
}

}  // namespace mediagen::engines::testing
