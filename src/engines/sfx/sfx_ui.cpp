// Interface and game sounds: whoosh, click, pop, laser zap, coin pickup.
#include <algorithm>
#include <cmath>

#include "sfx_recipes.hpp"

namespace mediagen::engines::sfx {
namespace {

// A soft square-ish tone (odd harmonics) from `at` for `length_s`, decaying by `decay_s`.
void add_chip_tone(std::span<float> out, std::size_t at, double hz, double length_s, double decay_s, double amp) {
  const std::size_t n = std::min(out.size() - std::min(out.size(), at), seconds_to_samples(length_s));
  for (std::size_t k = 0; k < n; ++k) {
    const double t = sample_time(k), w = kTwoPi * hz * t;
    const double env = std::min(1.0, t / 0.002) * std::exp(-t / decay_s) * std::min(1.0, (length_s - t) / 0.004);
    out[at + k] += static_cast<float>(amp * env * (std::sin(w) + 0.3 * std::sin(3 * w) + 0.12 * std::sin(5 * w)));
  }
}

}  // namespace

// A whoosh: noise through a band-pass that sweeps up and back down as the object passes.
void render_whoosh(std::span<float> out, const Shape& shape, Rng& rng) {
  const double length = 0.8 / shape.rate;
  repeat_events(out, rng.range(0.0, 0.03), 1.5 / shape.rate, 0.2, rng, [&](std::size_t at) {
    const std::size_t n = std::min(out.size() - at, seconds_to_samples(length));
    const double peak_hz = rng.range(1800.0, 3200.0) * shape.pitch;
    PinkNoise pink;
    Biquad band;
    for (std::size_t k = 0; k < n; ++k) {
      const double x = sample_time(k) / length, bump = std::pow(std::sin(std::numbers::pi * x), 2.0);
      if (k % 32 == 0) band.set_bandpass(250.0 * shape.pitch + peak_hz * bump, 1.4);
      out[at + k] += static_cast<float>(bump * band.process(pink.next(rng)));
    }
  });
}

// A click: a switch's press and, a moment later, its softer release.
void render_click(std::span<float> out, const Shape& shape, Rng& rng) {
  repeat_events(out, rng.range(0.01, 0.04), 0.7 / shape.rate, 0.2, rng, [&](std::size_t at) {
    const double p = shape.pitch * rng.range(0.95, 1.05);
    const Mode press[] = {{2800.0 * p, 0.005, 1.0}, {4500.0 * p, 0.003, 0.6}, {1200.0 * p, 0.004, 0.3}};
    add_modes(out, at, press, 1.0);
    add_noise_burst(out, at, 0.0001, 0.001, 0.7, Biquad::highpass(3000.0), rng);
    const std::size_t release = at + seconds_to_samples(rng.range(0.06, 0.09));
    const Mode lift[] = {{3400.0 * p, 0.004, 1.0}, {5200.0 * p, 0.002, 0.5}};
    if (release < out.size()) add_modes(out, release, lift, 0.45);
  });
}

// A pop (a cork, a bubble): a short tone whose pitch drops fast, with a puff of noise.
void render_pop(std::span<float> out, const Shape& shape, Rng& rng) {
  repeat_events(out, rng.range(0.01, 0.04), 0.6 / shape.rate, 0.25, rng, [&](std::size_t at) {
    const double f_hi = rng.range(800.0, 1100.0) * shape.pitch, f_lo = f_hi * 0.4;
    const std::size_t n = std::min(out.size() - at, seconds_to_samples(0.12));
    double phase = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double t = sample_time(k);
      phase += kTwoPi * (f_lo + (f_hi - f_lo) * std::exp(-t / 0.012)) / kRate;
      out[at + k] += static_cast<float>(std::min(1.0, t / 0.0005) * std::exp(-t / 0.025) * std::sin(phase));
    }
    add_noise_burst(out, at, 0.0002, 0.004, 0.4, Biquad::bandpass(2000.0 * shape.pitch, 1.0), rng);
  });
}

// A sci-fi laser: a buzzy tone diving from high to low with a fast vibrato.
void render_laser(std::span<float> out, const Shape& shape, Rng& rng) {
  const double length = 0.28 / shape.rate;
  repeat_events(out, rng.range(0.005, 0.03), 0.5 / shape.rate, 0.2, rng, [&](std::size_t at) {
    const double f_hi = rng.range(2400.0, 3400.0) * shape.pitch, f_lo = rng.range(150.0, 250.0) * shape.pitch;
    const std::size_t n = std::min(out.size() - at, seconds_to_samples(length));
    double phase = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double t = sample_time(k), x = t / length;
      const double hz = f_hi * std::pow(f_lo / f_hi, x) * (1.0 + 0.06 * std::sin(kTwoPi * 55.0 * t));
      phase += kTwoPi * hz / kRate;
      const double env = std::min(1.0, t / 0.002) * (1.0 - x);
      out[at + k] += static_cast<float>(env * (std::sin(phase) + 0.35 * std::sin(3 * phase)));
    }
  });
}

// A game coin: two quick notes a fourth apart (B5 then E6), the second ringing out.
void render_coin(std::span<float> out, const Shape& shape, Rng& rng) {
  repeat_events(out, rng.range(0.005, 0.02), 1.0 / shape.rate, 0.1, rng, [&](std::size_t at) {
    const double p = shape.pitch;
    add_chip_tone(out, at, 987.77 * p, 0.075, 1.0, 0.8);
    const std::size_t second = at + seconds_to_samples(0.075);
    if (second < out.size()) add_chip_tone(out, second, 1318.51 * p, 0.5, 0.16, 1.0);
  });
}

}  // namespace mediagen::engines::sfx
