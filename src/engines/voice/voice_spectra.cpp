#include "voice_spectra.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

namespace mediagen::engines::detail {
namespace {

std::mutex& planner() {
  static std::mutex m;  // FFTW's planner is not thread-safe; execution is
  return m;
}

std::size_t power_of_two_at_least(std::size_t n) {
  std::size_t size = 1;
  while (size < n) size *= 2;
  return size;
}

}  // namespace

Fft::Fft(std::size_t size) : size_(size) {
  real_ = fftw_alloc_real(size);
  spectrum_ = fftw_alloc_complex(size / 2 + 1);
  other_ = fftw_alloc_complex(size / 2 + 1);
  std::lock_guard lock(planner());
  forward_ = fftw_plan_dft_r2c_1d(static_cast<int>(size), real_, spectrum_, FFTW_ESTIMATE);
  inverse_ = fftw_plan_dft_c2r_1d(static_cast<int>(size), spectrum_, real_, FFTW_ESTIMATE);
}

Fft::~Fft() {
  {
    std::lock_guard lock(planner());
    fftw_destroy_plan(forward_);
    fftw_destroy_plan(inverse_);
  }
  fftw_free(real_);
  fftw_free(spectrum_);
  fftw_free(other_);
}

std::vector<double> Fft::power(const std::vector<double>& frame) {
  std::copy_n(frame.begin(), std::min(frame.size(), size_), real_);
  std::fill(real_ + std::min(frame.size(), size_), real_ + size_, 0.0);
  fftw_execute(forward_);
  std::vector<double> p(size_ / 2 + 1);
  for (std::size_t k = 0; k < p.size(); ++k) p[k] = spectrum_[k][0] * spectrum_[k][0] + spectrum_[k][1] * spectrum_[k][1];
  return p;
}

std::vector<double> Fft::correlate(std::span<const double> a, std::span<const double> b, std::size_t lags) {
  const std::size_t bins = size_ / 2 + 1;
  std::fill(real_, real_ + size_, 0.0);
  std::copy(a.begin(), a.end(), real_);
  fftw_execute(forward_);
  for (std::size_t k = 0; k < bins; ++k) {
    other_[k][0] = spectrum_[k][0];
    other_[k][1] = spectrum_[k][1];
  }
  std::fill(real_, real_ + size_, 0.0);
  std::copy(b.begin(), b.end(), real_);
  fftw_execute(forward_);
  for (std::size_t k = 0; k < bins; ++k) {  // conj(A) * B
    const double re = other_[k][0] * spectrum_[k][0] + other_[k][1] * spectrum_[k][1];
    const double im = other_[k][0] * spectrum_[k][1] - other_[k][1] * spectrum_[k][0];
    spectrum_[k][0] = re;
    spectrum_[k][1] = im;
  }
  fftw_execute(inverse_);
  std::vector<double> r(std::min(lags, size_));
  for (std::size_t t = 0; t < r.size(); ++t) r[t] = real_[t] / static_cast<double>(size_);
  return r;
}

PitchTracker::PitchTracker(int sample_rate)
    : rate_(sample_rate),
      window_(static_cast<std::size_t>(sample_rate / 50)),
      min_lag_(static_cast<std::size_t>(sample_rate / 400)),
      max_lag_(static_cast<std::size_t>(sample_rate / 60)),
      fft_(power_of_two_at_least(3 * static_cast<std::size_t>(sample_rate / 50))),
      a_(window_),
      b_(2 * window_) {}

std::optional<double> PitchTracker::f0(std::span<const float> mono, std::size_t start) {
  if (start + b_.size() > mono.size()) return std::nullopt;
  for (std::size_t i = 0; i < b_.size(); ++i) b_[i] = mono[start + i];
  std::copy_n(b_.begin(), window_, a_.begin());
  const auto r = fft_.correlate(a_, b_, max_lag_ + 2);
  // Energy of each lagged window, by a running sum.
  std::vector<double> energy(max_lag_ + 2);
  double e = 0;
  for (std::size_t i = 0; i < window_; ++i) e += b_[i] * b_[i];
  const double e0 = e;
  for (std::size_t t = 0; t < energy.size(); ++t) {
    energy[t] = e;
    e += b_[t + window_] * b_[t + window_] - b_[t] * b_[t];
  }
  if (e0 <= 1e-9) return std::nullopt;
  std::vector<double> rho(energy.size(), 0.0);
  double best = 0;
  for (std::size_t t = min_lag_; t <= max_lag_; ++t) {
    rho[t] = r[t] / std::sqrt(e0 * std::max(energy[t], 1e-12));
    best = std::max(best, rho[t]);
  }
  if (best < 0.6) return std::nullopt;
  // The shortest lag that peaks near the best one: a multiple of the period correlates as well.
  for (std::size_t t = min_lag_ + 1; t < max_lag_; ++t) {
    if (rho[t] >= 0.9 * best && rho[t] >= rho[t - 1] && rho[t] >= rho[t + 1]) {
      return static_cast<double>(rate_) / static_cast<double>(t);
    }
  }
  return std::nullopt;
}

}  // namespace mediagen::engines::detail
