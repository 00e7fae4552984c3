// The announcement throttle (app/throttle.hpp).
#include "mediagen/app/throttle.hpp"

namespace mediagen {

void Throttle::request() {
  {
    const std::lock_guard lock(mutex_);
    if (open_) {
      pending_ = true;
      return;
    }
    open_ = true;
    arm();
  }
  run_();
}

void Throttle::arm() {
  timer_.expires_after(period_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) period_ended();
  });
}

void Throttle::period_ended() {
  {
    const std::lock_guard lock(mutex_);
    if (!pending_) {
      open_ = false;
      return;
    }
    pending_ = false;
    arm();
  }
  run_();
}

}  // namespace mediagen
