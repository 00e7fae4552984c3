#pragma once
#include <chrono>

namespace mediagen {

using TimePoint = std::chrono::system_clock::time_point;
using Seconds = std::chrono::seconds;

// Injected wherever time decides behaviour (ban ladders, cache TTLs, expiry) so tests can steer it.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
};

}  // namespace mediagen
