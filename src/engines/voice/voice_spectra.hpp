#pragma once
// Spectra and pitch for voice_features.cpp: an FFTW plan wrapper and an autocorrelation pitch
// tracker. One object per call (per thread): FFTW's execute is thread-safe, its planner is not,
// so plans are made and destroyed under one lock.
#include <complex>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <fftw3.h>

namespace mediagen::engines::detail {

class Fft {
 public:
  explicit Fft(std::size_t size);
  ~Fft();
  Fft(const Fft&) = delete;
  Fft& operator=(const Fft&) = delete;

  // |X[k]|^2 for k in 0..size/2 of a real frame of `size` samples.
  std::vector<double> power(const std::vector<double>& frame);
  // Cross-correlation r(t) = sum_j a[j] b[j + t], t in 0..lags-1, of frames no longer than
  // size/3 (a) and 2*size/3 (b), so nothing wraps around.
  std::vector<double> correlate(std::span<const double> a, std::span<const double> b, std::size_t lags);

 private:
  std::size_t size_;
  double* real_;
  fftw_complex* spectrum_;
  fftw_complex* other_;
  fftw_plan forward_;
  fftw_plan inverse_;
};

// F0 of voiced speech, 60..400 Hz, by normalised autocorrelation over 40 ms from a frame's start.
class PitchTracker {
 public:
  explicit PitchTracker(int sample_rate);
  // nullopt: unvoiced (no lag correlates at 0.6 or more), or too near the end.
  std::optional<double> f0(std::span<const float> mono, std::size_t start);

 private:
  int rate_;
  std::size_t window_;   // 20 ms: the lagged half
  std::size_t min_lag_;  // 400 Hz
  std::size_t max_lag_;  // 60 Hz
  Fft fft_;
  std::vector<double> a_, b_;
};

}  // namespace mediagen::engines::detail
