#pragma once
// One long-lived subscribed Redis connection on a thread of its own. It reconnects and
// re-subscribes after Redis restarts, calling on_connected first so callers can reload state
// they may have missed while disconnected.
#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/counters.hpp"

namespace mediagen::cache {

class Subscriber {
 public:
  using OnMessage = std::function<void(std::string_view channel, std::string_view payload)>;
  using OnConnected = std::function<void()>;

  // Messages are remote input: a handler that fails drops that one message, counted as a
  // contained failure in counters (when given), and the subscription goes on.
  Subscriber(RedisOptions options, std::vector<std::string> channels, OnMessage on_message,
             OnConnected on_connected, InfraCounters* counters = nullptr);
  ~Subscriber();
  Subscriber(const Subscriber&) = delete;
  Subscriber& operator=(const Subscriber&) = delete;

  void start();
  void stop();
  bool connected() const { return connected_.load(); }

 private:
  void loop();
  RedisOptions options_;
  std::vector<std::string> channels_;
  OnMessage on_message_;
  OnConnected on_connected_;
  InfraCounters* counters_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> connected_{false};
  std::thread thread_;
};

}  // namespace mediagen::cache
