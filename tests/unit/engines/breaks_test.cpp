// ElevenLabs' break tags: what counts as one, the text without them, and the pauses they make.
#include <gtest/gtest.h>

#include "mediagen/engines/speech/breaks.hpp"

namespace mediagen::engines {
namespace {

TEST(BreakTags, TheirFormsAndTheirCap) {
  const std::string text = R"(A <break time="1.5s" /> b <BREAK  time = '250ms'/> c <break time="9s"/> d <break time=1s/>)";
  const auto tags = find_breaks(text);
  ASSERT_EQ(tags.size(), 3u);
  EXPECT_EQ(tags[0].ms, 1500);
  EXPECT_EQ(text.substr(tags[0].offset, tags[0].length), R"(<break time="1.5s" />)");
  EXPECT_EQ(tags[1].ms, 250);
  EXPECT_EQ(tags[2].ms, kMaxBreakMs);  // capped, as ElevenLabs caps it
  EXPECT_TRUE(find_breaks(R"(<b>bold</b> <break/> <break time="x"/> <break time="1h"/>)").empty());
}

TEST(BreakTags, TheSpokenTextKeepsItsWords) {
  const std::string text = R"(One <break time="1s"/>two)";
  const std::vector<WordTiming> words{{0, 3, 0}, {22, 3, 1400}, {5, 5, 500}};
  const auto spoken = without_breaks(text, words);
  EXPECT_EQ(spoken.text, "One two");
  ASSERT_EQ(spoken.words.size(), 2u);  // the word inside the tag is dropped
  EXPECT_EQ(spoken.words[1].text_offset, 4u);
}

TEST(BreakTags, PiecesAreSpokenWithThePausesBetween) {
  SpeechRequest request;
  request.text = R"(<break time="0.5s"/>Hi <break time="1s"/> there<break time="250ms"/>)";
  request.breaks = true;
  std::vector<std::string> asked;
  auto pcm = speak_with_breaks_if(request, [&](const SpeechRequest& piece) -> boost::system::result<SpeechPcm, EngineFailure> {
    asked.push_back(piece.text);
    SpeechPcm out;
    out.sample_rate = 1000;
    out.samples.assign(100, 7);  // 100 ms
    out.words.push_back({0, 2, 10});
    return out;
  });
  ASSERT_TRUE(pcm);
  EXPECT_EQ(asked, (std::vector<std::string>{"Hi ", " there"}));
  EXPECT_EQ(pcm->samples.size(), 500u + 100u + 1000u + 100u + 250u);
  EXPECT_EQ(pcm->samples[499], 0);
  EXPECT_EQ(pcm->samples[500], 7);
  ASSERT_EQ(pcm->words.size(), 2u);
  EXPECT_EQ(pcm->words[0].start_ms, 510);
  EXPECT_EQ(request.text.substr(pcm->words[1].text_offset, 2), " t");
  EXPECT_EQ(pcm->words[1].start_ms, 1610);

  request.breaks = false;  // native orders: the tags are text
  asked.clear();
  ASSERT_TRUE(speak_with_breaks_if(request, [&](const SpeechRequest& piece) -> boost::system::result<SpeechPcm, EngineFailure> {
    asked.push_back(piece.text);
    return SpeechPcm{.samples = {1}, .sample_rate = 1000};
  }));
  EXPECT_EQ(asked, std::vector<std::string>{request.text});
}

}  // namespace
}  // namespace mediagen::engines
