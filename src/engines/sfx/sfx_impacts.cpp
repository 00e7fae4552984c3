// Impacts: explosion, gunshot, glass break, door knock, footsteps.
#include <algorithm>
#include <cmath>
#include <vector>

#include "sfx_recipes.hpp"

namespace mediagen::engines::sfx {

// An explosion: a hard crack, a low body whose brightness falls as it dies, a sub-bass thump
// and a few late bits of debris. Long renders get further blasts.
void render_explosion(std::span<float> out, const Shape& shape, Rng& rng) {
  const double period = 4.5 / shape.rate;
  repeat_events(out, rng.range(0.0, 0.05), period, 0.25, rng, [&](std::size_t at) {
    add_noise_burst(out, at, 0.0005, 0.025, 0.9, Biquad::highpass(600.0), rng);
    BrownNoise brown;
    Biquad lp;
    const double tail_s = 1.1 * shape.intensity;
    const std::size_t end = std::min(out.size(), at + seconds_to_samples(tail_s * 5.0));
    double thump_phase = 0;
    for (std::size_t i = at; i < end; ++i) {
      const double t = sample_time(i - at);
      if ((i - at) % 32 == 0) lp.set_lowpass((180.0 + 3200.0 * std::exp(-t / 0.25)) * shape.pitch, 0.8);
      const double env = std::min(1.0, t / 0.004) * std::exp(-t / tail_s);
      thump_phase += kTwoPi * (55.0 - 20.0 * std::min(1.0, t / 0.3)) * shape.pitch / kRate;
      const double thump = std::exp(-t / 0.35) * std::sin(thump_phase);
      out[i] += static_cast<float>(env * 2.2 * lp.process(brown.next(rng)) + 0.8 * thump);
    }
    for (int d = 0; d < 6; ++d) {
      const std::size_t when = at + seconds_to_samples(rng.range(0.3, 1.8));
      if (when < out.size()) {
        add_noise_burst(out, when, 0.0005, rng.range(0.005, 0.02), rng.range(0.05, 0.15),
                        Biquad::bandpass(rng.range(800, 3000), 1.5), rng);
      }
    }
  });
}

// A gunshot: the muzzle crack (very short, bright), the body of the blast (a band-passed burst
// and a low thump), and its slap off nearby walls (the mixer's room adds the tail).
void render_gunshot(std::span<float> out, const Shape& shape, Rng& rng) {
  const double period = 1.5 / shape.rate;
  repeat_events(out, rng.range(0.005, 0.03), period, 0.2, rng, [&](std::size_t at) {
    add_noise_burst(out, at, 0.0002, 0.004, 1.0, Biquad::highpass(1500.0), rng);
    add_noise_burst(out, at, 0.0005, 0.045 * shape.intensity, 0.8, Biquad::bandpass(900.0 * shape.pitch, 0.9), rng);
    const Mode thump[] = {{110.0 * shape.pitch, 0.06 * shape.intensity, 0.9}};
    add_modes(out, at, thump, 1.0);
    for (int echo = 1; echo <= 3; ++echo) {
      const std::size_t when = at + seconds_to_samples(rng.range(0.06, 0.22) * echo);
      if (when < out.size()) {
        add_noise_burst(out, when, 0.001, 0.05, 0.3 / echo, Biquad::bandpass(700.0 * shape.pitch, 0.8), rng);
      }
    }
  });
}

// Glass breaking: an impact, then many shards ringing at high inharmonic frequencies, dense at
// first and thinning out, with a few late tinkles as pieces land.
void render_glass(std::span<float> out, const Shape& shape, Rng& rng) {
  const double period = 2.6 / shape.rate;
  repeat_events(out, rng.range(0.005, 0.04), period, 0.2, rng, [&](std::size_t at) {
    add_noise_burst(out, at, 0.0003, 0.012, 0.8, Biquad::highpass(2500.0), rng);
    const int shards = static_cast<int>(45 * shape.intensity);
    for (int s = 0; s < shards; ++s) {
      const double delay = 0.6 * std::pow(rng.uniform(), 2.0);  // most shards early
      const std::size_t when = at + seconds_to_samples(delay);
      if (when >= out.size()) continue;
      const double hz = rng.range(2200.0, 9000.0) * shape.pitch;
      const Mode shard[] = {{hz, rng.range(0.03, 0.25), 1.0}, {hz * 1.53, rng.range(0.02, 0.12), 0.5}};
      add_modes(out, when, shard, rng.range(0.1, 0.4) * (1.0 - delay));
    }
    for (int s = 0; s < 6; ++s) {
      const std::size_t when = at + seconds_to_samples(rng.range(0.7, 1.6));
      const Mode tinkle[] = {{rng.range(3000.0, 7000.0) * shape.pitch, 0.05, 1.0}};
      if (when < out.size()) add_modes(out, when, tinkle, rng.range(0.05, 0.15));
    }
  });
}

// A knuckle on a wooden door: a short click and the panel's few low modes. Knocks come in
// groups of two to four, a group every couple of seconds.
void render_knock(std::span<float> out, const Shape& shape, Rng& rng) {
  const double period = 2.0 / shape.rate;
  repeat_events(out, rng.range(0.01, 0.05), period, 0.15, rng, [&](std::size_t at) {
    const std::size_t knocks = 2 + rng.below(3);
    const double gap = rng.range(0.16, 0.22) / std::sqrt(shape.rate);
    for (std::size_t k = 0; k < knocks; ++k) {
      const std::size_t when = at + seconds_to_samples(gap * static_cast<double>(k));
      if (when >= out.size()) break;
      const double p = shape.pitch * rng.range(0.97, 1.03), a = rng.range(0.8, 1.0) * shape.intensity;
      const Mode wood[] = {{170.0 * p, 0.05, 1.0}, {395.0 * p, 0.035, 0.7}, {720.0 * p, 0.02, 0.45},
                           {1150.0 * p, 0.012, 0.3}};
      add_modes(out, when, wood, a);
      add_noise_burst(out, when, 0.0002, 0.003, 0.5 * a, Biquad::bandpass(2500.0 * p, 1.0), rng);
    }
  });
}

// Footsteps: heel then toe, each a dull thud and a scuff of grit; steps alternate slightly.
void render_footsteps(std::span<float> out, const Shape& shape, Rng& rng) {
  const double period = 0.55 / shape.rate;
  bool left = true;
  repeat_events(out, rng.range(0.01, 0.06), period, 0.06, rng, [&](std::size_t at) {
    const double p = shape.pitch * (left ? 1.0 : 1.06) * rng.range(0.95, 1.05);
    left = !left;
    const double weight = rng.range(0.8, 1.0) * std::min(1.5, shape.intensity);
    const Mode heel[] = {{95.0 * p, 0.03, 1.0}, {240.0 * p, 0.02, 0.5}};
    add_modes(out, at, heel, weight);
    add_noise_burst(out, at, 0.001, 0.018, 0.5 * weight, Biquad::bandpass(1200.0 * p, 0.8), rng);
    const std::size_t toe = at + seconds_to_samples(rng.range(0.05, 0.08));
    if (toe < out.size()) {
      add_noise_burst(out, toe, 0.002, 0.03, 0.35 * weight, Biquad::bandpass(2200.0 * p, 0.7), rng);
    }
  });
}

}  // namespace mediagen::engines::sfx
