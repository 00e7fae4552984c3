#pragma once
// A clock the test moves by hand (policy cooldowns, quote lifetimes); safe to read from the
// threads the code under test runs on.
#include <atomic>
#include <chrono>

#include "mediagen/core/clock.hpp"

namespace mediagen::test {

class SteppedClock final : public Clock {
 public:
  explicit SteppedClock(TimePoint start) : at_(start.time_since_epoch().count()) {}
  TimePoint now() const override { return TimePoint{TimePoint::duration{at_.load()}}; }
  void advance(std::chrono::microseconds by) {
    at_ += std::chrono::duration_cast<TimePoint::duration>(by).count();
  }

 private:
  std::atomic<TimePoint::rep> at_;
};

}  // namespace mediagen::test
