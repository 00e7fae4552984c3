// Machines and signals: engine hum, clock tick, door creak, alarm beep, bell, siren.
#include <algorithm>
#include <cmath>

#include "sfx_recipes.hpp"

namespace mediagen::engines::sfx {

// An idling engine: a low sawtooth at the firing rate (its harmonics are the hum), firing-gated
// noise for the mechanical rasp, and a slow wander in the revs.
void render_engine(std::span<float> out, const Shape& shape, Rng& rng) {
  const double base = rng.range(26.0, 34.0) * shape.pitch * std::sqrt(shape.rate);
  const Wobble revs(rng, 0.3);
  auto tone_lp = Biquad::lowpass(700.0 * shape.pitch, 0.9), rasp_lp = Biquad::lowpass(1600.0 * shape.pitch);
  double phase = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double hz = base * (1.0 + 0.04 * revs.at(sample_time(i)));
    phase += hz / kRate;
    if (phase >= 1.0) phase -= 1.0;
    const double saw = 2.0 * phase - 1.0;
    const double firing = std::exp(-phase * 6.0);  // a burst at the start of each cycle
    const double rasp = rasp_lp.process(rng.bipolar()) * firing * 0.6 * std::min(1.5, shape.intensity);
    out[i] += static_cast<float>(tone_lp.process(saw) + rasp);
  }
}

// A mechanical clock: tick and tock alternate, two small bright resonances and a body knock.
void render_clock(std::span<float> out, const Shape& shape, Rng& rng) {
  bool tick = true;
  repeat_events(out, rng.range(0.01, 0.05), 0.5 / shape.rate, 0.01, rng, [&](std::size_t at) {
    const double p = shape.pitch * (tick ? 1.0 : 0.78);
    tick = !tick;
    const Mode click[] = {{3100.0 * p, 0.008, 1.0}, {4700.0 * p, 0.005, 0.6}, {900.0 * p, 0.012, 0.4}};
    add_modes(out, at, click, 1.0);
    add_noise_burst(out, at, 0.0001, 0.0015, 0.6, Biquad::highpass(2000.0), rng);
  });
}

// A creaking hinge: stick-slip friction, an irregular train of impulses whose rate wanders,
// ringing the door's resonances.
void render_creak(std::span<float> out, const Shape& shape, Rng& rng) {
  const double creak_s = 1.7 / shape.rate;
  repeat_events(out, rng.range(0.01, 0.05), 2.5 / shape.rate, 0.15, rng, [&](std::size_t at) {
    Biquad bank[] = {Biquad::bandpass(520.0 * shape.pitch, 12.0), Biquad::bandpass(1150.0 * shape.pitch, 14.0),
                     Biquad::bandpass(2050.0 * shape.pitch, 16.0)};
    const Wobble slip(rng, 1.2 / creak_s);
    const std::size_t n = std::min(out.size() - at, seconds_to_samples(creak_s));
    double next_pulse = 0, t = 0;
    for (std::size_t k = 0; k < n; ++k, t = sample_time(k)) {
      double x = 0;
      if (t >= next_pulse) {
        x = rng.range(0.6, 1.0);
        next_pulse = t + 1.0 / (110.0 + 90.0 * slip.at(t)) * rng.range(0.85, 1.15);
      }
      const double env = std::sin(std::numbers::pi * t / creak_s);
      out[at + k] += static_cast<float>(env * (bank[0].process(x) + 0.7 * bank[1].process(x) + 0.4 * bank[2].process(x)));
    }
  });
}

// An alarm: groups of four short sine beeps at a high pitch, a pause between groups.
void render_alarm(std::span<float> out, const Shape& shape, Rng& rng) {
  const double hz = 2000.0 * shape.pitch * rng.range(0.98, 1.02);
  const double on = 0.11 / shape.rate, off = 0.08 / shape.rate, pause = 0.4 / shape.rate;
  const double group = 4 * (on + off) + pause;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double t = sample_time(i), in_group = std::fmod(t, group);
    const double slot = std::fmod(in_group, on + off);
    if (in_group >= 4 * (on + off) || slot >= on) continue;
    const double edge = std::min({1.0, slot / 0.003, (on - slot) / 0.003});  // no clicks at the edges
    out[i] += static_cast<float>(edge * std::sin(kTwoPi * hz * t));
  }
}

// A bell: a struck modal body with a bell's inharmonic partials (hum, prime, minor third,
// fifth, nominal, ...), the low ones ringing longest.
void render_bell(std::span<float> out, const Shape& shape, Rng& rng) {
  const double f = rng.range(500.0, 560.0) * shape.pitch, ring = std::sqrt(shape.intensity);
  repeat_events(out, rng.range(0.005, 0.03), 3.5 / shape.rate, 0.1, rng, [&](std::size_t at) {
    const Mode partials[] = {{f * 0.5, 4.0 * ring, 0.35}, {f * 1.0, 2.8 * ring, 1.0}, {f * 1.19, 2.0 * ring, 0.6},
                             {f * 1.5, 1.5 * ring, 0.4},  {f * 2.0, 1.6 * ring, 0.7}, {f * 2.51, 0.8 * ring, 0.3},
                             {f * 2.66, 0.7 * ring, 0.25}, {f * 3.01, 0.5 * ring, 0.2}, {f * 4.1, 0.3 * ring, 0.12}};
    add_modes(out, at, partials, rng.range(0.85, 1.0));
    add_noise_burst(out, at, 0.0002, 0.003, 0.3, Biquad::bandpass(4.0 * f, 2.0), rng);
  });
}

// A wailing siren: a bright tone (three harmonics) sweeping up and down.
void render_siren(std::span<float> out, const Shape& shape, Rng& rng) {
  const double period = 4.0 / shape.rate, lo = 650.0 * shape.pitch, hi = 1450.0 * shape.pitch;
  double phase = 0, sweep = rng.range(0.0, 1.0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    sweep += 1.0 / (period * kRate);
    const double hz = lo + (hi - lo) * (0.5 - 0.5 * std::cos(kTwoPi * sweep));
    phase += kTwoPi * hz / kRate;
    if (phase > kTwoPi) phase -= kTwoPi;
    out[i] += static_cast<float>(std::sin(phase) + 0.3 * std::sin(2 * phase) + 0.15 * std::sin(3 * phase));
  }
}

}  // namespace mediagen::engines::sfx
