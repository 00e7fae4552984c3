#include "mediagen/core/time_zone.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace mediagen {
namespace {

using namespace std::chrono_literals;

// 2026-11-22T20:44:45Z
TimePoint sample() { return TimePoint{std::chrono::seconds{1795380285}}; }

std::string in_zone(std::string_view zone, TimePoint t) {
  auto tz = TimeZone::parse(zone);
  if (!tz) return "<no zone " + std::string(zone) + ">";
  return tz->format(t);
}

TEST(TimeZone, SampleInstantIsWhatTheTestsAssume) {
  EXPECT_EQ(TimeZone::utc().format(sample()), "2026-11-22T20:44:45+00:00");
}

TEST(TimeZone, RendersMoscowAtPlusThreeHours) {
  EXPECT_EQ(in_zone("Europe/Moscow", sample()), "2026-11-22T23:44:45+03:00");
}

TEST(TimeZone, RendersKathmanduAtPlusFiveHoursFortyFive) {
  EXPECT_EQ(in_zone("Asia/Kathmandu", sample()), "2026-11-23T02:29:45+05:45");
}

TEST(TimeZone, RendersEtcGmtPlusThreeAsMinusThreeHours) {
  // POSIX sign convention: Etc/GMT+3 is three hours behind UTC.
  EXPECT_EQ(in_zone("Etc/GMT+3", sample()), "2026-11-22T17:44:45-03:00");
}

TEST(TimeZone, RendersUtcWithAnExplicitZeroOffset) {
  auto tz = TimeZone::parse("UTC");
  ASSERT_TRUE(tz.has_value());
  EXPECT_TRUE(tz->is_utc());
  EXPECT_EQ(tz->name(), "UTC");
  EXPECT_EQ(tz->format(sample()), "2026-11-22T20:44:45+00:00");
}

TEST(TimeZone, DefaultZoneIsUtc) {
  EXPECT_TRUE(TimeZone::utc().is_utc());
  EXPECT_EQ(TimeZone::utc().name(), "UTC");
}

TEST(TimeZone, EchoesTheCanonicalZoneName) {
  auto tz = TimeZone::parse("Europe/Moscow");
  ASSERT_TRUE(tz.has_value());
  EXPECT_EQ(tz->name(), "Europe/Moscow");
  EXPECT_FALSE(tz->is_utc());
}

TEST(TimeZone, DropsFractionsOfASecond) {
  EXPECT_EQ(TimeZone::utc().format(sample() + 999ms), "2026-11-22T20:44:45+00:00");
}

TEST(TimeZone, RendersInstantsBefore1970) {
  EXPECT_EQ(TimeZone::utc().format(TimePoint{-1s}), "1969-12-31T23:59:59+00:00");
  EXPECT_EQ(TimeZone::utc().format(TimePoint{-500ms}), "1969-12-31T23:59:59+00:00");
  EXPECT_EQ(in_zone("Europe/Moscow", TimePoint{-1s}), "1970-01-01T02:59:59+03:00");
}

TEST(TimeZone, RendersNegativeOffsetsWithMinutes) {
  // Newfoundland: -03:30 in winter.
  EXPECT_EQ(in_zone("America/St_Johns", *parse_iso8601("2026-01-15T12:00:00Z")), "2026-01-15T08:30:00-03:30");
}

TEST(TimeZone, FollowsBerlinIntoSummerTimeAtTheExactSecond) {
  // 2026-03-29 01:00:00Z: clocks jump from 02:00 CET to 03:00 CEST.
  const TimePoint change = *parse_iso8601("2026-03-29T01:00:00Z");
  EXPECT_EQ(in_zone("Europe/Berlin", change - 1s), "2026-03-29T01:59:59+01:00");
  EXPECT_EQ(in_zone("Europe/Berlin", change), "2026-03-29T03:00:00+02:00");
}

TEST(TimeZone, FollowsBerlinBackToWinterTimeAtTheExactSecond) {
  // 2026-10-25 01:00:00Z: clocks fall back from 03:00 CEST to 02:00 CET.
  const TimePoint change = *parse_iso8601("2026-10-25T01:00:00Z");
  EXPECT_EQ(in_zone("Europe/Berlin", change - 1s), "2026-10-25T02:59:59+02:00");
  EXPECT_EQ(in_zone("Europe/Berlin", change), "2026-10-25T02:00:00+01:00");
}

TEST(TimeZone, RejectsABareOffset) { EXPECT_FALSE(TimeZone::parse("+03:00").has_value()); }

TEST(TimeZone, RejectsUtcWithAnOffset) { EXPECT_FALSE(TimeZone::parse("UTC+3").has_value()); }

TEST(TimeZone, RejectsAPathTraversal) {
  EXPECT_FALSE(TimeZone::parse("../../etc/passwd").has_value());
  EXPECT_FALSE(TimeZone::parse("/etc/passwd").has_value());
  EXPECT_FALSE(TimeZone::parse("Europe/../../../etc/passwd").has_value());
}

TEST(TimeZone, RejectsAnEmptyName) { EXPECT_FALSE(TimeZone::parse("").has_value()); }

TEST(TimeZone, RejectsAVeryLongName) {
  EXPECT_FALSE(TimeZone::parse(std::string(5000, 'A')).has_value());
  EXPECT_FALSE(TimeZone::parse("Europe/" + std::string(5000, 'x')).has_value());
}

TEST(TimeZone, RejectsUnknownAndOddNames) {
  EXPECT_FALSE(TimeZone::parse("Mars/Olympus_Mons").has_value());
  EXPECT_FALSE(TimeZone::parse("-3").has_value());
  EXPECT_FALSE(TimeZone::parse("Europe/Moscow\r\nX-Evil: 1").has_value());
  EXPECT_FALSE(TimeZone::parse(std::string("Europe/Moscow\0", 14)).has_value());
  EXPECT_FALSE(TimeZone::parse("Europe/Moscow ").has_value());
}

TEST(ParseIso8601, ReadsAUtcInstant) {
  auto t = parse_iso8601("2026-11-22T20:44:45Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, sample());
}

TEST(ParseIso8601, AppliesAnExplicitOffset) {
  EXPECT_EQ(parse_iso8601("2026-11-22T23:44:45+03:00"), sample());
  EXPECT_EQ(parse_iso8601("2026-11-22T17:44:45-03:00"), sample());
  EXPECT_EQ(parse_iso8601("2026-11-23T02:29:45+05:45"), sample());
}

TEST(ParseIso8601, TreatsAMissingOffsetAsUtc) { EXPECT_EQ(parse_iso8601("2026-11-22T20:44:45"), sample()); }

TEST(ParseIso8601, AcceptsASpaceInsteadOfT) { EXPECT_EQ(parse_iso8601("2026-11-22 20:44:45Z"), sample()); }

TEST(ParseIso8601, DropsFractionalSeconds) { EXPECT_EQ(parse_iso8601("2026-11-22T20:44:45.987654Z"), sample()); }

TEST(ParseIso8601, ReadsADateAsMidnightUtc) {
  EXPECT_EQ(parse_iso8601("2026-11-22"), parse_iso8601("2026-11-22T00:00:00Z"));
}

TEST(ParseIso8601, RoundTripsWhatTimeZoneFormats) {
  for (const char* zone : {"UTC", "Europe/Moscow", "Asia/Kathmandu", "Etc/GMT+3", "Europe/Berlin",
                           "America/St_Johns", "Pacific/Chatham"}) {
    auto tz = TimeZone::parse(zone);
    ASSERT_TRUE(tz.has_value()) << zone;
    for (TimePoint t : {sample(), *parse_iso8601("2026-03-29T01:00:00Z"), *parse_iso8601("2026-10-25T00:30:00Z"),
                        *parse_iso8601("1999-12-31T23:59:59Z"), *parse_iso8601("2038-01-19T03:14:08Z")}) {
      const std::string text = tz->format(t);
      auto back = parse_iso8601(text);
      ASSERT_TRUE(back.has_value()) << zone << " " << text;
      EXPECT_EQ(*back, t) << zone << " " << text;
      EXPECT_EQ(tz->format(*back), text);
    }
  }
}

TEST(ParseIso8601, RejectsMalformedText) {
  for (const char* text : {"", "not a date", "2026", "2026-11", "2026/11/22", "26-11-22", "2026-13-01",
                           "2026-02-30", "2026-11-22T", "2026-11-22T20:44", "2026-11-22T24:00:00Z",
                           "2026-11-22T20:60:00Z", "2026-11-22T20:44:45+3", "2026-11-22T20:44:45+03",
                           "2026-11-22T20:44:45+24:00", "2026-11-22T20:44:45+03:60", "2026-11-22T20:44:45ZZ",
                           "2026-11-22T20:44:45 UTC", "2026-11-22X20:44:45Z", "2026-11-22T20:44:45Europe/Moscow"}) {
    EXPECT_FALSE(parse_iso8601(text).has_value()) << "accepted '" << text << "'";
  }
}

TEST(ParseIso8601, RejectsSignsAndSpacesInsideNumericFields) {
  // sscanf's %2d skips blanks and reads a sign, so " 1" and "-1" both fit a two-character field.
  for (const char* text : {"2026-11-22T-1:00:00Z", "2026-11-22T20:-1:00Z", "2026-11-22T20:44:-1Z",
                           "2026-11-22T-1:-1:-1Z", "2026-11-22T20:44:45+-1:00", "2026-11-22T20:44:45+01:-1",
                           "2026-11-22T 1: 2: 3Z", "2026-+1-22", "2026-11-+2"}) {
    EXPECT_FALSE(parse_iso8601(text).has_value()) << "accepted '" << text << "'";
  }
}

TEST(ParseIso8601, RejectsTrailingText) {
  EXPECT_FALSE(parse_iso8601("2026-11-22T20:44:45Z" + std::string(10000, 'x')).has_value());
  EXPECT_FALSE(parse_iso8601("2026-11-22T20:44:45+03:00x").has_value());
}

TEST(ParseIso8601, RefusesTimesATimePointCannotHold) {
  // TimePoint counts nanoseconds in 64 bits; a later year once overflowed the conversion (found
  // by tests/fuzz/fuzz_params).
  EXPECT_TRUE(parse_iso8601("2262-04-11T23:47:16Z").has_value());
  EXPECT_TRUE(parse_iso8601("1677-09-21T00:12:44Z").has_value());
  for (const char* text : {"2262-04-11T23:47:17Z", "9999-12-31T23:59:59-23:59", "3000-01-01", "1677-09-21T00:12:43Z",
                           "0000-01-01T00:00:00+23:59"}) {
    EXPECT_FALSE(parse_iso8601(text).has_value()) << "accepted '" << text << "'";
  }
}

TEST(ParseIso8601, NeverDropsAnOffsetThatFollowsALongFraction) {
  // 71 characters: the offset lies beyond the first 64. Reading it as UTC would be three hours off;
  // the value must either keep its offset or be refused.
  const std::string text = "2026-11-22T23:44:45." + std::string(45, '0') + "+03:00";
  auto t = parse_iso8601(text);
  if (t) {
    EXPECT_EQ(*t, sample()) << "read " << TimeZone::utc().format(*t) << " from " << text;
  }
}

}  // namespace
}  // namespace mediagen
