#pragma once
// Answers waiting for an order's chunks (POST /v1/audio/speech streams them as they finish) are
// woken when this instance commits a change of that order; a change made by another instance is
// found by the waiter's own timed look. Thread-safe: notify() is called from worker threads.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

namespace mediagen::compat {

class OrderWaiters {
 public:
  void notify(std::string_view order_id);
  // Returns after a notify() of the order or after `timeout`, whichever comes first.
  boost::asio::awaitable<void> wait(const std::string& order_id, std::chrono::milliseconds timeout);
  std::size_t waiting() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_multimap<std::string, std::shared_ptr<boost::asio::steady_timer>> timers_;
};

}  // namespace mediagen::compat
