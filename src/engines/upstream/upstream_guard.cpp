#include "upstream_guard.hpp"

namespace mediagen::engines::upstream_detail {

Guard::Guard(int max_in_flight, int failures_to_open, std::chrono::milliseconds open_for,
             std::function<Clock::time_point()> now, std::chrono::milliseconds slot_wait)
    : max_in_flight_(max_in_flight < 1 ? 1 : max_in_flight),
      failures_to_open_(failures_to_open < 1 ? 1 : failures_to_open),
      open_for_(open_for),
      now_(std::move(now)),
      slot_wait_(slot_wait) {}

Admission Guard::enter() {
  std::unique_lock lock(mutex_);
  if (open_) {
    // Open: refused until the pause is over, then one probe at a time.
    if (probing_ || now_() < open_until_) return Admission::circuit_open;
    probing_ = true;
  }
  // A full cap waits for a slot (the wait is a real one: slots free as calls end).
  if (!freed_.wait_for(lock, slot_wait_, [this] { return in_flight_ < max_in_flight_; })) {
    if (probing_) probing_ = false;
    return Admission::busy;
  }
  ++in_flight_;
  return Admission::admitted;
}

void Guard::finish(bool failed) {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
    if (!failed) {
      failures_ = 0;
      open_ = false;
      probing_ = false;
    } else if (probing_ || ++failures_ >= failures_to_open_) {
      open_ = true;
      probing_ = false;
      open_until_ = now_() + open_for_;
    }
  }
  freed_.notify_one();
}

bool Guard::open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

}  // namespace mediagen::engines::upstream_detail
