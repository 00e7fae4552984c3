// A malformed Redis URL must be refused as an error, never take the process down from a thread.
// Both checks fail while parsing the URL, before anything is dialled.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "mediagen/cache/subscriber.hpp"
#include "mediagen/db/blocking_pool.hpp"

namespace mediagen {
namespace {

TEST(BadRedisUrlDeathTest, BlockingPoolRefusesItWithoutAborting) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InfraCounters counters;
        try {
          db::BlockingPool pool({.threads = 1,
                                 .database_url = "postgresql://unused@127.0.0.1:1/unused",
                                 .redis = {.url = "localhost:6379"}},
                                counters);
          pool.stop();
        } catch (const std::exception&) {
          // Refusing in the constructor is the expected outcome.
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(BadRedisUrlDeathTest, SubscriberRefusesItWithoutAborting) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        try {
          cache::Subscriber subscriber({.url = "localhost:6379"}, {"channel"}, [](std::string_view, std::string_view) {},
                                       [] {});
          subscriber.start();
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          subscriber.stop();
        } catch (const std::exception&) {
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace mediagen
