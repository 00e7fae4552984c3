// Weather and water: rain, thunder, wind, sea waves, fire, water drip, and the fallback ambience.
#include <algorithm>
#include <cmath>

#include "sfx_recipes.hpp"

namespace mediagen::engines::sfx {

// A hiss of band-limited pink noise (the wash of many far drops) and single near drops: tiny
// resonant plinks, Poisson-spaced, denser when heavy.
void render_rain(std::span<float> out, const Shape& shape, Rng& rng) {
  PinkNoise pink;
  auto hp = Biquad::highpass(500.0), lp = Biquad::lowpass(7000.0 * shape.pitch);
  const Wobble swell(rng, 0.15);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double level = 0.55 + 0.12 * swell.at(sample_time(i));
    out[i] += static_cast<float>(level * lp.process(hp.process(pink.next(rng))));
  }
  const double drops_per_s = 90.0 * shape.intensity * shape.rate;
  repeat_events(out, 0.0, 1.0 / drops_per_s, 0.95, rng, [&](std::size_t at) {
    const double hz = rng.range(1800.0, 5500.0) * shape.pitch;
    const Mode plink[] = {{hz, rng.range(0.004, 0.012), rng.range(0.05, 0.35)}};
    add_modes(out, at, plink, 1.0);
  });
}

// Rolls of thunder: a bright crack, then a long low rumble that swells and breaks up.
void render_thunder(std::span<float> out, const Shape& shape, Rng& rng) {
  const double seconds = sample_time(out.size());
  const double period = std::max(3.0, 7.0 / (shape.rate * std::sqrt(shape.intensity)));
  repeat_events(out, rng.range(0.02, 0.15), period, 0.35, rng, [&](std::size_t at) {
    const double strength = rng.range(0.6, 1.0);
    add_noise_burst(out, at, 0.002, 0.03, 0.5 * strength, Biquad::highpass(900.0), rng);
    BrownNoise brown;
    auto lp = Biquad::lowpass(260.0 * shape.pitch, 0.9);
    const Wobble breakup(rng, 2.5);
    const double rumble_s = std::min(seconds, rng.range(2.5, 4.5) * shape.intensity);
    const std::size_t end = std::min(out.size(), at + seconds_to_samples(rumble_s * 1.6));
    for (std::size_t i = at; i < end; ++i) {
      const double t = sample_time(i - at);
      const double env = std::min(1.0, t / 0.25) * std::exp(-std::max(0.0, t - 0.25) / (rumble_s * 0.45));
      const double rough = 0.6 + 0.4 * breakup.at(t);
      out[i] += static_cast<float>(strength * env * rough * lp.process(brown.next(rng)) * 1.5);
    }
  });
}

// Wind: pink noise through a resonant low-pass whose cutoff and level wander with the gusts
// (the roar and its whistle), over a thin hiss of air that rises with them.
void render_wind(std::span<float> out, const Shape& shape, Rng& rng) {
  const Wobble gust(rng, 0.12 * shape.rate), whistle(rng, 0.07 * shape.rate);
  PinkNoise pink;
  Biquad roar;
  auto hiss = Biquad::highpass(2500.0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double t = sample_time(i), g = gust.at(t);
    if (i % 32 == 0) roar.set_lowpass((1300.0 + 700.0 * whistle.at(t) + 600.0 * g) * shape.pitch, 1.4);
    const double level = std::max(0.1, 0.6 + 0.4 * g) * std::min(2.0, shape.intensity);
    out[i] += static_cast<float>(level * (roar.process(pink.next(rng)) + (0.45 + 0.25 * g) * hiss.process(rng.bipolar())));
  }
}

// Sea waves: pink noise that swells as a wave builds, brightens as it breaks, then recedes.
void render_waves(std::span<float> out, const Shape& shape, Rng& rng) {
  PinkNoise pink;
  Biquad lp;
  const double period = 6.5 / shape.rate;
  double phase = rng.uniform(), wave_len = period * rng.range(0.8, 1.2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    phase += 1.0 / (wave_len * kRate);
    if (phase >= 1.0) phase -= 1.0, wave_len = period * rng.range(0.8, 1.2);
    // Rise over 60 % of the cycle, break at its top, recede: a skewed bump never quite at zero.
    const double p = phase < 0.6 ? phase / 0.6 : 1.0 - (phase - 0.6) / 0.4;
    const double env = 0.12 + 0.88 * std::pow(p, 2.2);
    if (i % 32 == 0) lp.set_lowpass((300.0 + 3200.0 * env) * shape.pitch, 0.7);
    out[i] += static_cast<float>(env * std::min(1.6, shape.intensity) * lp.process(pink.next(rng)));
  }
}

// Fire: a soft low roar, crackles (tiny bright bursts) and now and then a louder pop of sap.
void render_fire(std::span<float> out, const Shape& shape, Rng& rng) {
  BrownNoise brown;
  auto lp = Biquad::lowpass(420.0 * shape.pitch);
  const Wobble flicker(rng, 0.8);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] += static_cast<float>((0.22 + 0.08 * flicker.at(sample_time(i))) * lp.process(brown.next(rng)));
  }
  const double crackles_per_s = 18.0 * shape.intensity * shape.rate;
  repeat_events(out, 0.01, 1.0 / crackles_per_s, 0.95, rng, [&](std::size_t at) {
    const bool pop = rng.uniform() < 0.08;
    const auto filter = Biquad::bandpass(rng.range(1500.0, 6000.0) * shape.pitch, 1.2);
    add_noise_burst(out, at, 0.0003, pop ? 0.012 : rng.range(0.001, 0.004), pop ? 1.0 : rng.range(0.2, 0.6), filter, rng);
  });
}

// A drop into water: a small bubble whose pitch rises as it closes, in a reverberant space.
void render_drip(std::span<float> out, const Shape& shape, Rng& rng) {
  const double period = 0.65 / shape.rate;
  repeat_events(out, rng.range(0.02, 0.1), period, 0.3, rng, [&](std::size_t at) {
    const double f0 = rng.range(700.0, 1300.0) * shape.pitch, amp = rng.range(0.6, 1.0);
    const std::size_t n = std::min(out.size() - at, seconds_to_samples(0.09));
    double phase = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double t = sample_time(k);
      const double hz = f0 * (1.0 + 1.2 * std::min(1.0, t / 0.035));
      phase += kTwoPi * hz / kRate;
      out[at + k] += static_cast<float>(amp * std::exp(-t / 0.018) * std::sin(phase));
    }
  });
}

// The fallback: a soft room tone; its colour and slow swell follow the seed.
void render_ambience(std::span<float> out, const Shape& shape, Rng& rng) {
  PinkNoise pink;
  auto lp = Biquad::lowpass(rng.range(350.0, 1400.0) * shape.pitch, 0.6), hp = Biquad::highpass(60.0);
  const Wobble swell(rng, rng.range(0.05, 0.2) * shape.rate);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double level = 0.7 + 0.3 * swell.at(sample_time(i));
    out[i] += static_cast<float>(level * lp.process(hp.process(pink.next(rng))));
  }
}

}  // namespace mediagen::engines::sfx
