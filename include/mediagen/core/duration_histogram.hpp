#pragma once
// A Prometheus histogram of durations with fixed buckets: atomics only, so any thread may observe
// and render at once.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace mediagen {

class DurationHistogram {
 public:
  // Upper bounds in seconds: fine below 10 ms, where a realtime delivery should stay.
  static constexpr std::array<double, 14> kBounds{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                  0.025,  0.05,    0.1,    0.25,  0.5,    1.0,   5.0};

  void observe(std::chrono::nanoseconds d);
  // Appends HELP, TYPE, the cumulative buckets, _sum and _count under `name`.
  void render(std::string& out, std::string_view name, std::string_view help) const;
  std::uint64_t count() const;  // the buckets' sum

 private:
  std::array<std::atomic<std::uint64_t>, kBounds.size() + 1> buckets_{};
  std::atomic<std::uint64_t> sum_nanos_{0};
};

}  // namespace mediagen
