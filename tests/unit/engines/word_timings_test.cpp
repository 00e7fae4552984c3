#include "mediagen/engines/audio/word_timings.hpp"

#include <gtest/gtest.h>

namespace mediagen::engines {
namespace {

TEST(Timings, RoundTripThroughTheStoredJson) {
  const std::vector<WordTiming> words{{0, 5, 50}, {6, 3, 420}, {10, 12, 900}};
  const auto json = timings_to_json(words);
  EXPECT_EQ(json, "[[0,5,50],[6,3,420],[10,12,900]]");
  const auto back = timings_from_json(json);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[2].text_offset, 10u);
  EXPECT_EQ((*back)[2].text_length, 12u);
  EXPECT_EQ((*back)[2].start_ms, 900);
  EXPECT_EQ(timings_to_json({}), "[]");
}

TEST(Timings, RefusesAnythingButTriplesOfNonNegativeIntegers) {
  EXPECT_FALSE(timings_from_json("{}"));
  EXPECT_FALSE(timings_from_json("[[1,2]]"));
  EXPECT_FALSE(timings_from_json("[[1,2,-3]]"));
  EXPECT_FALSE(timings_from_json("[[1,2,3.5]]"));
  EXPECT_FALSE(timings_from_json("[[\"1\",2,3]]"));
  EXPECT_FALSE(timings_from_json("garbage"));
  EXPECT_TRUE(timings_from_json("[]"));
}

TEST(Timings, EstimatedTimingsSayItAndReadBackTheSame) {
  const std::vector<WordTiming> words{{0, 3, 50}, {4, 5, 400}};
  const auto json = timings_to_json(words, true);
  EXPECT_EQ(json, R"({"estimated":true,"words":[[0,3,50],[4,5,400]]})");
  EXPECT_TRUE(timings_estimated(json));
  EXPECT_FALSE(timings_estimated(timings_to_json(words)));
  const auto back = timings_from_json(json);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->size(), 2U);
  EXPECT_EQ((*back)[1].start_ms, 400);
}

}  // namespace
}  // namespace mediagen::engines
