#pragma once
// Folds requests for one announcement (a Redis PUBLISH to the other instances) into at most one
// run per `period`: the first request after a quiet period runs at once; the requests that come
// within the period after a run make one more run when it ends. None is lost, and none is more
// than `period` late. Under load that is one PUBLISH per period instead of one per order.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <mutex>

namespace mediagen {

class Throttle {
 public:
  // `run` is called on the requesting thread or on one of the io_context's (two calls may
  // overlap), and must not block: it hands the work to a pool.
  Throttle(boost::asio::io_context& io, std::chrono::milliseconds period, std::function<void()> run)
      : timer_(io), period_(period), run_(std::move(run)) {}
  Throttle(const Throttle&) = delete;
  Throttle& operator=(const Throttle&) = delete;

  void request();  // any thread

 private:
  void arm();  // with mutex_ held
  void period_ended();

  boost::asio::steady_timer timer_;
  std::chrono::milliseconds period_;
  std::function<void()> run_;
  std::mutex mutex_;
  bool open_ = false;     // a period is running (the timer waits)
  bool pending_ = false;  // a request came in during it
};

}  // namespace mediagen
