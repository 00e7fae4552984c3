#include <gtest/gtest.h>

#include <string>

#include "mediagen/cache/ban_ladder.hpp"

namespace mediagen::cache {
namespace {

TimePoint at(std::int64_t unix_seconds) { return TimePoint{std::chrono::seconds{unix_seconds}}; }

TEST(BanEvent, ParsesAnIpv4Event) {
  auto event = BanLadder::parse_event("203.0.113.7 1800000300 2");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->first, "203.0.113.7");
  EXPECT_EQ(event->second.until, at(1800000300));
  EXPECT_EQ(event->second.step, 2);
}

TEST(BanEvent, ParsesAnIpv6Event) {
  auto event = BanLadder::parse_event("2001:db8::1 1800000300 5");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->first, "2001:db8::1");
  EXPECT_EQ(event->second.step, 5);
}

TEST(BanEvent, RefusesMalformedEvents) {
  for (const char* payload : {"", " ", "203.0.113.7", "203.0.113.7 1800000300", "203.0.113.7 1800000300 ",
                              "203.0.113.7  1800000300 2", " 203.0.113.7 1800000300 2", "203.0.113.7 soon 2",
                              "203.0.113.7 1800000300 two", "203.0.113.7 1800000300 0", "203.0.113.7 1800000300 -1",
                              "203.0.113.7 -5 1", "203.0.113.7 1800000300 2 extra", "203.0.113.7 +1800000300 2",
                              "203.0.113.7 1800000300.5 2", "host.example 1800000300 2", "1.2.3.4;rm 1800000300 2",
                              "203.0.113.7 99999999999999999999 2"}) {
    EXPECT_FALSE(BanLadder::parse_event(payload).has_value()) << "'" << payload << "'";
  }
}

TEST(BanEvent, RefusesAnIpOfMoreThan45Characters) {
  EXPECT_FALSE(BanLadder::parse_event(std::string(46, '1') + " 1800000300 1").has_value());
  EXPECT_TRUE(BanLadder::parse_event(std::string(45, '1') + " 1800000300 1").has_value());
}

TEST(BanEvent, RefusesAnOversizedEvent) {
  const std::string padded = "203.0.113.7 " + std::string(110, '0') + "1800000300 1";
  ASSERT_GT(padded.size(), 128u);
  EXPECT_FALSE(BanLadder::parse_event(padded).has_value());
  EXPECT_FALSE(BanLadder::parse_event(std::string(1 << 20, '1')).has_value());
}

TEST(BanEvent, NamesItsChannelAfterThePrefix) {
  BanLadder ladder({.prefix = "tenant7:"});
  EXPECT_EQ(ladder.channel(), "tenant7:bans:events");
}

}  // namespace
}  // namespace mediagen::cache
