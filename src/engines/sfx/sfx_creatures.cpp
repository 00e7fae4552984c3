// Living things: bird chirp, dog bark (a synthetic approximation), heartbeat, crowd murmur,
// applause.
#include <algorithm>
#include <cmath>
#include <vector>

#include "sfx_recipes.hpp"

namespace mediagen::engines::sfx {
namespace {

// One chirp: a sine gliding and trilling, shaped by a smooth bump.
void add_chirp(std::span<float> out, std::size_t at, double f0, double glide, double length_s, double amp) {
  const std::size_t n = std::min(out.size() - at, seconds_to_samples(length_s));
  double phase = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double t = sample_time(k), x = t / length_s;
    const double hz = f0 * (1.0 + glide * x) + 250.0 * std::sin(kTwoPi * 38.0 * t);
    phase += kTwoPi * hz / kRate;
    const double env = std::pow(std::sin(std::numbers::pi * x), 2.0);
    out[at + k] += static_cast<float>(amp * env * std::sin(phase));
  }
}

// One bark: a falling glottal pulse train through a dog's mouth (three formants) plus breath.
void add_bark(std::span<float> out, std::size_t at, double pitch, double amp, Rng& rng) {
  Biquad formants[] = {Biquad::bandpass(700.0 * pitch, 4.0), Biquad::bandpass(1500.0 * pitch, 5.0),
                       Biquad::bandpass(2800.0 * pitch, 6.0)};
  auto breath = Biquad::bandpass(1600.0 * pitch, 1.0);
  const double length = rng.range(0.16, 0.22), f_start = rng.range(440.0, 520.0) * pitch;
  const std::size_t n = std::min(out.size() - at, seconds_to_samples(length));
  double phase = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double t = sample_time(k);
    phase += f_start * (1.0 - 0.35 * t / length) / kRate;
    if (phase >= 1.0) phase -= 1.0;
    const double pulse = std::exp(-phase * 8.0) - 0.125;  // a sharp glottal closure each period
    const double env = std::min(1.0, t / 0.008) * (t < 0.04 ? 1.0 : std::exp(-(t - 0.04) / 0.05));
    const double voiced = formants[0].process(pulse) + 0.8 * formants[1].process(pulse) + 0.35 * formants[2].process(pulse);
    out[at + k] += static_cast<float>(amp * env * (voiced + 0.25 * breath.process(rng.bipolar())));
  }
}

}  // namespace

// Birds: two or three singers, each with its own pitch, calling in short bursts of chirps.
void render_birds(std::span<float> out, const Shape& shape, Rng& rng) {
  const std::size_t singers = 2 + rng.below(2);
  for (std::size_t b = 0; b < singers; ++b) {
    const double f0 = rng.range(2400.0, 4800.0) * shape.pitch, glide = rng.range(-0.4, 0.6);
    const double first = b == 0 ? rng.range(0.01, 0.05) : rng.range(0.1, 1.2);
    repeat_events(out, first, 1.3 / shape.rate, 0.5, rng, [&](std::size_t at) {
      const std::size_t chirps = 2 + rng.below(5);
      const double length = rng.range(0.04, 0.11), gap = length + rng.range(0.03, 0.09);
      for (std::size_t c = 0; c < chirps; ++c) {
        const std::size_t when = at + seconds_to_samples(gap * static_cast<double>(c) / shape.rate);
        if (when < out.size()) add_chirp(out, when, f0 * rng.range(0.95, 1.05), glide, length, rng.range(0.5, 1.0));
      }
    });
  }
}

// A dog barking in groups of one to three (heavy: a bigger, lower dog).
void render_dog(std::span<float> out, const Shape& shape, Rng& rng) {
  repeat_events(out, rng.range(0.01, 0.05), 1.4 / shape.rate, 0.3, rng, [&](std::size_t at) {
    const std::size_t barks = 1 + rng.below(3);
    for (std::size_t b = 0; b < barks; ++b) {
      const std::size_t when = at + seconds_to_samples(0.3 * static_cast<double>(b) / shape.rate);
      if (when < out.size()) add_bark(out, when, shape.pitch * rng.range(0.95, 1.05), rng.range(0.8, 1.0), rng);
    }
  });
}

// A heartbeat: lub (a low thud) and dub (a shorter, higher one), about 70 beats a minute.
void render_heartbeat(std::span<float> out, const Shape& shape, Rng& rng) {
  repeat_events(out, rng.range(0.01, 0.05), 60.0 / (70.0 * shape.rate), 0.03, rng, [&](std::size_t at) {
    const Mode lub[] = {{55.0 * shape.pitch, 0.05, 1.0}, {110.0 * shape.pitch, 0.025, 0.3}};
    add_modes(out, at, lub, 1.0);
    add_noise_burst(out, at, 0.008, 0.03, 0.15, Biquad::lowpass(200.0), rng);
    const std::size_t dub = at + seconds_to_samples(0.28 / std::sqrt(shape.rate));
    const Mode dub_modes[] = {{75.0 * shape.pitch, 0.04, 0.7}, {150.0 * shape.pitch, 0.02, 0.2}};
    if (dub < out.size()) add_modes(out, dub, dub_modes, 1.0);
  });
}

// A crowd: a dozen voices, each a pulse train through two formants that move syllable by
// syllable, switching on and off as people talk and pause. No words: a murmur.
void render_crowd(std::span<float> out, const Shape& shape, Rng& rng) {
  const auto voices = static_cast<std::size_t>(std::clamp(12.0 * shape.intensity, 4.0, 24.0));
  for (std::size_t v = 0; v < voices; ++v) {
    Rng voice_rng = rng.fork();
    const double f0 = voice_rng.range(95.0, 240.0) * shape.pitch;
    Biquad f1, f2;
    OnePole level(12.0);
    double phase = voice_rng.uniform(), syllable_end = 0, target = 0, step = 0, pulse = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const double t = sample_time(i);
      if (t >= syllable_end) {
        syllable_end = t + voice_rng.range(0.12, 0.3) / shape.rate;
        target = voice_rng.uniform() < 0.7 ? voice_rng.range(0.4, 1.0) : 0.0;
        f1.set_bandpass(voice_rng.range(300.0, 800.0), 5.0);
        f2.set_bandpass(voice_rng.range(900.0, 2300.0), 7.0);
      }
      if (i % 64 == 0) step = f0 * (1.0 + 0.05 * std::sin(kTwoPi * 3.0 * t)) / kRate;  // vibrato is slow
      phase += step;
      // A glottal pulse: jumps at each period's start and decays (exp(-10 phase), incrementally).
      pulse = phase >= 1.0 ? 1.0 : pulse * (1.0 - 10.0 * step);
      if (phase >= 1.0) phase -= 1.0;
      const double x = pulse - 0.1;
      out[i] += static_cast<float>(level.process(target) * (f1.process(x) + 0.6 * f2.process(x)));
    }
  }
}

// Applause: many single claps (short band-passed bursts) at random, swelling in at the start.
void render_applause(std::span<float> out, const Shape& shape, Rng& rng) {
  const double claps_per_s = 40.0 * shape.intensity * shape.rate;
  repeat_events(out, 0.0, 1.0 / claps_per_s, 0.95, rng, [&](std::size_t at) {
    const double swell = std::min(1.0, 0.3 + sample_time(at) / 0.4);
    const auto filter = Biquad::bandpass(rng.range(800.0, 2600.0) * shape.pitch, 1.3);
    add_noise_burst(out, at, 0.0005, rng.range(0.004, 0.01), swell * rng.range(0.3, 1.0), filter, rng);
  });
}

}  // namespace mediagen::engines::sfx
