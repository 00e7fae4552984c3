// Character timings from word timings, and the timings file of a whole track.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mediagen/engines/audio/char_timings.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::engines {
namespace {

std::string joined(const CharTimes& t) {
  std::string out;
  for (const auto& c : t.characters) out += c;
  return out;
}

TEST(CharTimings, WordsAnchorTheirCharactersAndTheRestIsShared) {
  const std::vector<WordTiming> words{{0, 5, 100}, {6, 5, 600}};
  CharTimes t;
  align_chunk({"Hello world", words, 1000, 1500}, false, t);
  CharTimes lead;
  align_chunk({" Hi", std::vector<WordTiming>{{1, 2, 300}}, 1000, 1000}, false, lead);
  EXPECT_DOUBLE_EQ(lead.starts[0], 1.0);  // before the first word: from the chunk's start
  EXPECT_DOUBLE_EQ(lead.starts[1], 1.3);
  EXPECT_EQ(joined(t), "Hello world");
  EXPECT_DOUBLE_EQ(t.starts[0], 1.1);  // the first word's start
  EXPECT_DOUBLE_EQ(t.starts[6], 1.6);  // "world" at its word's start
  EXPECT_DOUBLE_EQ(t.ends.back(), 2.5);
  EXPECT_TRUE(std::is_sorted(t.starts.begin(), t.starts.end()));
}

TEST(CharTimings, CodePointsStayWholeAndChunksJoinWithASpace) {
  const std::vector<WordTiming> words{{0, 12, 0}, {13, 6, 300}};
  CharTimes t;
  align_chunk({"Привет мир", words, 0, 800}, false, t);
  align_chunk({"ещё", {}, 800, 400}, true, t);
  EXPECT_EQ(joined(t), "Привет мир ещё");
  EXPECT_EQ(t.size(), 14u);
  EXPECT_DOUBLE_EQ(t.starts[10], 0.8);  // the joining space takes no time
  EXPECT_DOUBLE_EQ(t.ends[10], 0.8);
  EXPECT_DOUBLE_EQ(t.ends.back(), 1.2);
}

TEST(CharTimings, WordsThatLieAreContained) {
  // Out of order, past the text, inside a code point, before the chunk, after its end.
  const std::vector<WordTiming> words{{7, 3, 900}, {1, 2, -50}, {99, 1, 5}, {3, 1, 5000}};
  CharTimes t;
  align_chunk({"añb cd efg", words, 100, 1000}, false, t);
  EXPECT_EQ(joined(t), "añb cd efg");
  EXPECT_TRUE(std::is_sorted(t.starts.begin(), t.starts.end()));
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_LE(t.starts[i], t.ends[i]);
    EXPECT_GE(t.starts[i], 0.1);
    EXPECT_LE(t.ends[i], 1.1);
  }
}

TEST(TimingsFile, AlignmentAndWordsOfTheTrack) {
  const std::vector<WordTiming> a{{0, 5, 50}, {6, 6, 500}};
  const std::vector<WordTiming> b{{0, 4, 40}};
  const std::vector<TimedText> chunks{{"Hello there.", a, 0, 1000, false}, {"Bye!", b, 1000, 600, false}};
  std::string file;
  ASSERT_TRUE(write_timings_json(chunks, [&](std::string_view piece) {
    file += piece;
    return true;
  }));
  const auto doc = nlohmann::json::parse(file);
  EXPECT_FALSE(doc.contains("estimated"));
  EXPECT_EQ(doc["alignment"]["characters"].size(), 17u);
  const auto& words = doc["words"];
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[0]["text"], "Hello");
  EXPECT_DOUBLE_EQ(words[1]["start"].get<double>(), 0.5);
  EXPECT_EQ(words[2]["text"], "Bye!");
  EXPECT_DOUBLE_EQ(words[2]["start"].get<double>(), 1.04);
  EXPECT_DOUBLE_EQ(words[2]["end"].get<double>(), 1.6);

  const std::vector<TimedText> estimated{{"Guess.", {}, 0, 500, true}};
  file.clear();
  ASSERT_TRUE(write_timings_json(estimated, [&](std::string_view piece) {
    file += piece;
    return true;
  }));
  EXPECT_EQ(nlohmann::json::parse(file)["estimated"], true);
  EXPECT_FALSE(write_timings_json(estimated, [](std::string_view) { return false; }));
}

}  // namespace
}  // namespace mediagen::engines
