// The announcement throttle: a request after a quiet period runs at once, the requests within a
// period fold into one run when it ends, and none is lost. The io_context runs until it has
// nothing left, so the test waits for the timers without sleeping or judging a time.
#include "mediagen/app/throttle.hpp"

#include <gtest/gtest.h>

namespace mediagen {
namespace {

using namespace std::chrono_literals;

TEST(Throttle, ARequestAfterAQuietPeriodRunsAtOnce) {
  boost::asio::io_context io;
  int runs = 0;
  Throttle throttle(io, 1ms, [&] { ++runs; });
  throttle.request();
  EXPECT_EQ(runs, 1);
  io.run();  // the period ends with nothing pending
  EXPECT_EQ(runs, 1);
}

TEST(Throttle, ABurstIsOneRunNowAndOneWhenThePeriodEnds) {
  boost::asio::io_context io;
  int runs = 0;
  Throttle throttle(io, 1ms, [&] { ++runs; });
  for (int i = 0; i < 100; ++i) throttle.request();
  EXPECT_EQ(runs, 1);
  io.run();
  EXPECT_EQ(runs, 2) << "the requests after the first are announced once, at the period's end";

  io.restart();
  throttle.request();  // quiet again: at once
  EXPECT_EQ(runs, 3);
  io.run();
  EXPECT_EQ(runs, 3);
}

TEST(Throttle, ARequestDuringTheTrailingRunsPeriodIsNotLost) {
  boost::asio::io_context io;
  int runs = 0;
  Throttle* self = nullptr;
  // The trailing run asks again once (as a commit during an announcement would): one more run.
  bool asked_again = false;
  Throttle throttle(io, 1ms, [&] {
    ++runs;
    if (runs == 2 && !asked_again) {
      asked_again = true;
      self->request();
    }
  });
  self = &throttle;
  throttle.request();
  throttle.request();
  io.run();
  EXPECT_EQ(runs, 3);
}

TEST(Throttle, NothingRunsAfterItIsGoneWithATimerPending) {
  boost::asio::io_context io;
  int runs = 0;
  {
    Throttle throttle(io, 1h, [&] { ++runs; });
    throttle.request();
    throttle.request();
  }
  io.run();  // the cancelled wait runs nothing
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace mediagen
