#include "music_master.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace mediagen::engines::music {

MasterBus::MasterBus(const MasterOptions& options, Sink sink)
    : options_(options),
      sink_(std::move(sink)),
      release_per_chunk_(std::pow(10.0, kReleaseDbPerSecond * static_cast<double>(kChunkFrames) / 44100.0 / 20.0)) {
  filling_.reserve(kChunkFrames * 2);
}

bool MasterBus::push(std::span<const float> left, std::span<const float> right) {
  const std::size_t n = std::min(left.size(), right.size());
  for (std::size_t i = 0; i < n; ++i) {
    filling_.push_back(left[i]);
    filling_.push_back(right[i]);
    if (filling_.size() == kChunkFrames * 2 && !add_chunk()) return false;
  }
  return true;
}

bool MasterBus::add_chunk() {
  Chunk chunk{std::move(filling_), 0};
  filling_ = {};
  filling_.reserve(kChunkFrames * 2);
  for (const float v : chunk.samples) chunk.energy += static_cast<double>(v) * v;
  window_energy_ += chunk.energy;
  window_samples_ += chunk.samples.size();
  window_.push_back(std::move(chunk));
  while (window_.size() - current_ > kLevelReachChunks) {
    if (!level_next()) return false;
  }
  return true;
}

bool MasterBus::finish() {
  if (!filling_.empty() && !add_chunk()) return false;
  while (current_ < window_.size()) {
    if (!level_next()) return false;
  }
  if (have_pending_) {
    if (!emit_pending(std::min({pending_target_, start_gain_ * release_per_chunk_, 1.0}))) return false;
    have_pending_ = false;
  }
  return true;
}

// Levels window_[current_] by the RMS of every chunk in the window, then drops the chunk that
// falls out of reach.
bool MasterBus::level_next() {
  const double rms = std::sqrt(window_energy_ / static_cast<double>(std::max<std::size_t>(1, window_samples_)));
  const double gain = std::clamp(options_.target_rms / std::max(rms, 1e-4), options_.min_gain, options_.max_gain);
  const double from = level_gain_ < 0 ? gain : level_gain_;
  std::vector<float> samples = window_[current_].samples;
  const std::size_t frames = samples.size() / 2;
  for (std::size_t i = 0; i < frames; ++i) {
    const double g = from + (gain - from) * static_cast<double>(i + 1) / static_cast<double>(frames);
    samples[2 * i] = static_cast<float>(samples[2 * i] * g);
    samples[2 * i + 1] = static_cast<float>(samples[2 * i + 1] * g);
  }
  level_gain_ = gain;
  ++current_;
  if (current_ > kLevelReachChunks) {
    window_energy_ -= window_.front().energy;
    window_samples_ -= window_.front().samples.size();
    window_.pop_front();
    --current_;
  }
  return limit(std::move(samples));
}

bool MasterBus::limit(std::vector<float> samples) {
  float peak = 0;
  for (const float v : samples) peak = std::max(peak, std::abs(v));
  const double target = peak > options_.ceiling ? options_.ceiling / peak : 1.0;
  if (have_pending_) {
    const double end_gain = std::min({pending_target_, target, start_gain_ * release_per_chunk_, 1.0});
    if (!emit_pending(end_gain)) return false;
  } else {
    start_gain_ = target;
  }
  pending_ = std::move(samples);
  pending_target_ = target;
  have_pending_ = true;
  return true;
}

// Both ends of the ramp are at or under the chunk's own safe gain, so every sample is too.
bool MasterBus::emit_pending(double end_gain) {
  const std::size_t frames = pending_.size() / 2;
  out_.resize(pending_.size());
  for (std::size_t i = 0; i < frames; ++i) {
    const double t = static_cast<double>(i + 1) / static_cast<double>(frames);
    double gain = start_gain_ + (end_gain - start_gain_) * t;
    lowest_limiter_gain_ = std::min(lowest_limiter_gain_, gain);
    const auto frame = emitted_frames_ + static_cast<std::int64_t>(i);
    if (frame < options_.fade_in_frames) {
      gain *= static_cast<double>(frame) / static_cast<double>(options_.fade_in_frames);
    }
    const auto after = options_.total_frames - 1 - frame;  // frames after this one
    if (after < options_.fade_out_frames) {
      const double x = std::max<double>(0.0, static_cast<double>(after)) / static_cast<double>(options_.fade_out_frames);
      gain *= 0.5 - 0.5 * std::cos(std::numbers::pi * x);
    }
    for (std::size_t c = 0; c < 2; ++c) {
      const double v = std::round(static_cast<double>(pending_[2 * i + c]) * gain * 32767.0);
      out_[2 * i + c] = static_cast<std::int16_t>(std::clamp(v, -32768.0, 32767.0));
    }
  }
  emitted_frames_ += static_cast<std::int64_t>(frames);
  start_gain_ = end_gain;
  return sink_(out_);
}

}  // namespace mediagen::engines::music
