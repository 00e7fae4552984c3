// Building a clone's profile (see voice_profile.hpp): nearest base by timbre, then pitch, range
// and rate calibrated against the engine itself.
#include "mediagen/engines/voice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mediagen::engines {
namespace {

constexpr std::size_t kF0Median = 24;
constexpr std::size_t kF0Spread = 25;
constexpr std::size_t kVoiced = 26;
constexpr std::size_t kPace = 27;
constexpr std::size_t kCalibrated = 3;  // nearest candidates calibrated

struct Point {
  int x;
  double y;
};

// The setting whose measured value is `target`, by piecewise-linear interpolation over probes
// sorted by setting; outside the probed span the nearest measured end is extrapolated along its
// segment. Measurements that do not move with the setting give the nearest probe.
int solve(const std::vector<Point>& points, double target, int lo, int hi) {
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const auto& a = points[i];
    const auto& b = points[i + 1];
    const bool last = i + 2 == points.size();
    const bool first = i == 0;
    const double dy = b.y - a.y;
    if (std::abs(dy) < 1e-6) continue;
    const double t = (target - a.y) / dy;
    if ((t >= 0 && t <= 1) || (first && t < 0) || (last && t > 1)) {
      const double x = a.x + t * (b.x - a.x);
      return std::clamp(static_cast<int>(std::lround(x)), lo, hi);
    }
  }
  const auto nearest = std::min_element(points.begin(), points.end(), [&](const Point& p, const Point& q) {
    return std::abs(p.y - target) < std::abs(q.y - target);
  });
  return nearest->x;
}

// Probes `setting` of `base` at the given values and measures feature `index`.
std::vector<Point> measure(const ProfileProbe& probe, VoiceProfile base, int VoiceProfile::*setting,
                           std::initializer_list<int> values, std::size_t index) {
  std::vector<Point> out;
  for (const int v : values) {
    base.*setting = v;
    if (auto f = probe(base)) out.push_back({v, (*f)[index]});
  }
  return out;
}

VoiceProfile calibrate(const VoiceFeatures& sample, VoiceProfile p, const ProfileProbe& probe) {
  // An unvoiced sample (whisper, noise) says nothing about pitch: the base's own is kept.
  if (sample[kVoiced] > 0.1f && sample[kF0Median] > 0) {
    const auto pitch = measure(probe, p, &VoiceProfile::pitch, {5, 50, 95}, kF0Median);
    if (pitch.size() >= 2) p.pitch = solve(pitch, sample[kF0Median], 0, 100);
    const auto range = measure(probe, p, &VoiceProfile::pitch_range, {10, 90}, kF0Spread);
    if (range.size() >= 2) p.pitch_range = solve(range, sample[kF0Spread], 0, 100);
  }
  if (sample[kPace] > 0) {
    const auto rate = measure(probe, p, &VoiceProfile::rate_wpm, {110, 280}, kPace);
    if (rate.size() >= 2) p.rate_wpm = solve(rate, sample[kPace], 80, 450);
  }
  return p;
}

}  // namespace

std::optional<BuiltProfile> build_voice_profile(const VoiceFeatures& sample, std::span<const VoiceCandidate> candidates,
                                                const ProfileProbe& probe) {
  std::vector<std::pair<double, const VoiceCandidate*>> ranked;
  ranked.reserve(candidates.size());
  for (const auto& c : candidates) ranked.emplace_back(voice_distance(sample, c.features), &c);
  const std::size_t n = std::min(kCalibrated, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(n), ranked.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  std::optional<BuiltProfile> best;
  auto consider = [&](const VoiceProfile& p) {
    const auto f = probe(p);
    if (!f) return;
    const double d = voice_distance(sample, *f);
    if (!best || d < best->distance) best = BuiltProfile{p, d};
  };
  // The nearest few bases heard again on one text; the best of them is calibrated.
  for (std::size_t i = 0; i < n; ++i) consider({ranked[i].second->espeak_voice, ranked[i].second->espeak_variant});
  if (!best) return best;
  const VoiceProfile tuned = calibrate(sample, best->profile, probe);
  if (!(tuned == best->profile)) consider(tuned);
  return best;
}

}  // namespace mediagen::engines
