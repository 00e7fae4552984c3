#include "mediagen/core/duration_histogram.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace mediagen {
namespace {

using namespace std::chrono_literals;

TEST(DurationHistogram, RendersCumulativeBucketsSumAndCount) {
  DurationHistogram h;
  h.observe(50us);   // le 0.0001
  h.observe(100us);  // le 0.0001: a bound is inclusive
  h.observe(3ms);    // le 0.005
  h.observe(10s);    // +Inf only
  h.observe(-1ms);   // a clock that stepped back counts as zero
  std::string out;
  h.render(out, "x_seconds", "What x took.");
  EXPECT_EQ(out.rfind("# HELP x_seconds What x took.\n# TYPE x_seconds histogram\n", 0), 0u) << out;
  EXPECT_NE(out.find("x_seconds_bucket{le=\"0.0001\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_seconds_bucket{le=\"0.0025\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_seconds_bucket{le=\"0.005\"} 4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_seconds_bucket{le=\"5\"} 4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_seconds_bucket{le=\"+Inf\"} 5\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_seconds_sum 10.003150000\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_seconds_count 5\n"), std::string::npos) << out;
  EXPECT_EQ(h.count(), 5u);
}

}  // namespace
}  // namespace mediagen
