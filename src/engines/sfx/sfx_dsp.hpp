#pragma once
// The sound-effect engine's building blocks: a seeded generator, noise colours, biquad and
// one-pole filters, decaying resonators, and helpers that place short events on a buffer.
// Everything works on float samples at kSfxSampleRate and holds only its own state.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>

#include "mediagen/engines/sfx.hpp"

namespace mediagen::engines::sfx {

inline constexpr double kRate = kSfxSampleRate;
inline constexpr double kTwoPi = 2.0 * std::numbers::pi;

// splitmix64: tiny, well mixed, and the same on every platform (std distributions are not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double bipolar() { return 2.0 * uniform() - 1.0; }                           // [-1, 1)
  double range(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
  // A child generator for one layer or voice, so adding draws to one part leaves the others alone.
  Rng fork() { return Rng(next()); }

 private:
  std::uint64_t state_;
};

// Pink noise (-3 dB/octave), Paul Kellet's economy filter on white noise.
class PinkNoise {
 public:
  double next(Rng& rng) {
    const double w = rng.bipolar();
    b0_ = 0.99765 * b0_ + w * 0.0990460;
    b1_ = 0.96300 * b1_ + w * 0.2965164;
    b2_ = 0.57000 * b2_ + w * 1.0526913;
    return (b0_ + b1_ + b2_ + w * 0.1848) * 0.2;
  }

 private:
  double b0_ = 0, b1_ = 0, b2_ = 0;
};

// Brown noise (-6 dB/octave): leaky integrated white noise.
class BrownNoise {
 public:
  double next(Rng& rng) {
    y_ = 0.995 * y_ + 0.05 * rng.bipolar();
    return y_ * 2.0;
  }

 private:
  double y_ = 0;
};

// RBJ cookbook biquad, direct form I; coefficients may be recomputed between samples (sweeps).
class Biquad {
 public:
  static Biquad lowpass(double hz, double q = 0.7071) { Biquad f; f.set_lowpass(hz, q); return f; }
  static Biquad highpass(double hz, double q = 0.7071) { Biquad f; f.set_highpass(hz, q); return f; }
  static Biquad bandpass(double hz, double q) { Biquad f; f.set_bandpass(hz, q); return f; }

  void set_lowpass(double hz, double q) {
    const auto [w, alpha] = angles(hz, q);
    const double c = std::cos(w);
    set((1 - c) / 2, 1 - c, (1 - c) / 2, 1 + alpha, -2 * c, 1 - alpha);
  }
  void set_highpass(double hz, double q) {
    const auto [w, alpha] = angles(hz, q);
    const double c = std::cos(w);
    set((1 + c) / 2, -(1 + c), (1 + c) / 2, 1 + alpha, -2 * c, 1 - alpha);
  }
  // Constant 0 dB peak gain at hz.
  void set_bandpass(double hz, double q) {
    const auto [w, alpha] = angles(hz, q);
    set(alpha, 0, -alpha, 1 + alpha, -2 * std::cos(w), 1 - alpha);
  }
  double process(double x) {
    const double y = b0_ * x + b1_ * x1_ + b2_ * x2_ - a1_ * y1_ - a2_ * y2_;
    x2_ = x1_;
    x1_ = x;
    y2_ = y1_;
    y1_ = y;
    return y;
  }

 private:
  struct Angles {
    double w, alpha;
  };
  static Angles angles(double hz, double q) {
    const double w = kTwoPi * std::clamp(hz, 10.0, kRate * 0.45) / kRate;
    return {w, std::sin(w) / (2.0 * std::max(q, 0.05))};
  }
  void set(double b0, double b1, double b2, double a0, double a1, double a2) {
    b0_ = b0 / a0, b1_ = b1 / a0, b2_ = b2 / a0, a1_ = a1 / a0, a2_ = a2 / a0;
  }
  double b0_ = 1, b1_ = 0, b2_ = 0, a1_ = 0, a2_ = 0;
  double x1_ = 0, x2_ = 0, y1_ = 0, y2_ = 0;
};

// One-pole low-pass, for smoothing envelopes and darkening cheaply.
class OnePole {
 public:
  explicit OnePole(double hz) { set(hz); }
  void set(double hz) { a_ = std::exp(-kTwoPi * hz / kRate); }
  double process(double x) { return y_ = (1 - a_) * x + a_ * y_; }

 private:
  double a_ = 0, y_ = 0;
};

// A slow random wobble in [-1, 1]: the sum of three sines at seed-chosen rates and phases.
class Wobble {
 public:
  Wobble(Rng& rng, double hz) {
    for (auto& p : parts_) p = {rng.range(0.6, 1.6) * hz, rng.range(0, kTwoPi)};
  }
  double at(double t) const {
    double s = 0;
    for (const auto& p : parts_) s += std::sin(kTwoPi * p.hz * t + p.phase);
    return s / 3.0;
  }

 private:
  struct Part {
    double hz = 0, phase = 0;
  };
  Part parts_[3];
};

// A resonant mode of a struck object: frequency, time for the amplitude to fall by 1/e, weight.
struct Mode {
  double hz;
  double decay_s;
  double amp;
};

inline std::size_t seconds_to_samples(double s) { return s <= 0 ? 0 : static_cast<std::size_t>(s * kRate); }
inline double sample_time(std::size_t i) { return static_cast<double>(i) / kRate; }

// Adds exponentially decaying sines from `start` (a struck bar, bell, glass shard, wood panel).
// Each mode runs until it has fallen 60 dB or the buffer ends.
void add_modes(std::span<float> out, std::size_t start, std::span<const Mode> modes, double gain);

// Adds a burst of filtered white noise: `attack_s` linear rise then exponential decay `decay_s`,
// lasting about five decays. `filter` shapes the colour (copied: the burst starts from rest).
void add_noise_burst(std::span<float> out, std::size_t start, double attack_s, double decay_s, double gain,
                     Biquad filter, Rng& rng);

// Calls place(at) for events every `period_s` (times 1 +- jitter at random), the first one
// `first_s` in, while they start inside the buffer.
template <class Place>
void repeat_events(std::span<float> out, double first_s, double period_s, double jitter, Rng& rng, Place place) {
  period_s = std::max(period_s, 0.02);
  for (double t = first_s; seconds_to_samples(t) < out.size();
       t += period_s * (1.0 + jitter * rng.bipolar())) {
    place(seconds_to_samples(t));
  }
}

}  // namespace mediagen::engines::sfx
