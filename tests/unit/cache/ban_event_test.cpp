#include <gtest/gtest.h>

#include <cctype>
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

namespace mediagen::cache {
namespace {

TEST(BanEvent, RefusesAnEndATimePointCannotHoldAndAStepBeyondAnyLadder) {
  const auto last = max_ban_unix_seconds();
  ASSERT_TRUE(BanLadder::parse_event("203.0.113.7 " + std::to_string(last) + " 1").has_value());
  EXPECT_EQ(BanLadder::parse_event("203.0.113.7 " + std::to_string(last) + " 1")->second.until, at(last));
  EXPECT_FALSE(BanLadder::parse_event("203.0.113.7 " + std::to_string(last + 1) + " 1").has_value());
  EXPECT_FALSE(BanLadder::parse_event("203.0.113.7 9223372036854775807 1").has_value());
  EXPECT_TRUE(BanLadder::parse_event("203.0.113.7 1800000300 " + std::to_string(kMaxBanStep)).has_value());
  EXPECT_FALSE(BanLadder::parse_event("203.0.113.7 1800000300 " + std::to_string(kMaxBanStep + 1)).has_value());
  EXPECT_FALSE(BanLadder::parse_event("203.0.113.7 1800000300 9223372036854775807").has_value());
}

TEST(BanEvent, ReadsOnlyEventsSignedUnderTheSharedSecret) {
  const BanLadder ours({.secret = "s3cret"});
  const BanLadder theirs({.secret = "other"});
  const Ban ban{at(1800000300), 2};
  const std::string payload = ours.signed_event("203.0.113.7", ban);
  EXPECT_EQ(payload.substr(64), " 203.0.113.7 1800000300 2");
  auto read = ours.read_event(payload);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->first, "203.0.113.7");
  EXPECT_EQ(read->second.until, ban.until);
  EXPECT_EQ(read->second.step, 2);
  EXPECT_EQ(ours.unsigned_events(), 0u);

  std::string upper = payload;
  for (std::size_t i = 0; i < 64; ++i) upper[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[i])));
  for (const std::string& forged : {std::string("203.0.113.7 1800000300 2"), theirs.signed_event("203.0.113.7", ban),
                                    upper, payload.substr(0, 65) + "203.0.113.8 1800000300 2", payload + " "}) {
    EXPECT_FALSE(ours.read_event(forged).has_value()) << forged;
  }
  EXPECT_EQ(ours.unsigned_events(), 5u);
}

}  // namespace
}  // namespace mediagen::cache
