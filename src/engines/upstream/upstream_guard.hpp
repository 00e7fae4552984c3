#pragma once
// One upstream's cap on requests in flight and its circuit breaker (see upstream.hpp).
//
// Breaker: closed -> (failures in a row reach the threshold) -> open until now + open_for ->
// (the first call after that) half-open: that call is the probe and every other call is refused
// until it ends; its success closes the breaker, its failure opens it again.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace mediagen::engines::upstream_detail {

enum class Admission { admitted, circuit_open, busy };

class Guard {
 public:
  using Clock = std::chrono::steady_clock;
  Guard(int max_in_flight, int failures_to_open, std::chrono::milliseconds open_for,
        std::function<Clock::time_point()> now, std::chrono::milliseconds slot_wait);

  // A slot, or why not. An admitted call must end with finish().
  Admission enter();
  // `failed`: the call ended unavailable or unauthorized (counts toward opening); any other end,
  // a success or an answer about the content, closes the breaker.
  void finish(bool failed);
  bool open() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  const int max_in_flight_;
  const int failures_to_open_;
  const std::chrono::milliseconds open_for_;
  const std::function<Clock::time_point()> now_;
  const std::chrono::milliseconds slot_wait_;
  int in_flight_ = 0;
  int failures_ = 0;
  bool open_ = false;
  bool probing_ = false;
  Clock::time_point open_until_{};
};

}  // namespace mediagen::engines::upstream_detail
