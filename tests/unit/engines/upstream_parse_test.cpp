// The parsers of upstream answers and the word timings made from them (engines/upstream_parse.hpp).
#include <gtest/gtest.h>

#include "mediagen/engines/upstream.hpp"

namespace mediagen::engines {
namespace {

TEST(UpstreamParse, TimedSpeechDecodesTheAudioAndKeepsTheAlignment) {
  const auto timed = parse_timed_speech(
      R"({"audio_base64":"aGVsbG8=","alignment":{"characters":["a"," ","b"],"character_start_times_seconds":[0,0.5,1.25]}})");
  ASSERT_TRUE(timed);
  EXPECT_EQ(timed->audio, "hello");
  EXPECT_EQ(timed->characters.size(), 3U);
  EXPECT_FALSE(parse_timed_speech(R"({"audio_base64":"not base64!"})"));
  EXPECT_FALSE(parse_timed_speech(R"([1,2])"));
  // A malformed alignment costs the timings, not the audio.
  const auto bare = parse_timed_speech(R"({"audio_base64":"aGVsbG8=","alignment":{"characters":["a"]}})");
  ASSERT_TRUE(bare);
  EXPECT_TRUE(bare->characters.empty());
}

TEST(UpstreamParse, AlignmentBecomesWordsAtTheirFirstCharacter) {
  const std::string text = "Hi \xd0\xbc\xd0\xb8\xd1\x80!";  // "Hi мир!"
  const std::vector<std::string> chars{"H", "i", " ", "\xd0\xbc", "\xd0\xb8", "\xd1\x80", "!"};
  const std::vector<double> starts{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  const auto words = words_from_alignment(text, chars, starts);
  ASSERT_TRUE(words);
  ASSERT_EQ(words->size(), 2U);
  EXPECT_EQ((*words)[0].text_offset, 0U);
  EXPECT_EQ((*words)[0].text_length, 2U);
  EXPECT_EQ((*words)[1].text_offset, 3U);
  EXPECT_EQ((*words)[1].text_length, 7U);
  EXPECT_EQ((*words)[1].start_ms, 300);
  // Characters that do not spell the text: the caller estimates instead.
  EXPECT_FALSE(words_from_alignment("Hello", {"H", "i"}, {0.0, 0.1}));
}

TEST(UpstreamParse, EstimatedWordsShareTheDurationByLength) {
  const auto words = estimate_words("one three", 1000);
  ASSERT_EQ(words.size(), 2U);
  EXPECT_EQ(words[0].start_ms, 0);
  EXPECT_EQ(words[1].start_ms, 400);  // "one" + pause = 4 of 10 shares
  EXPECT_EQ(words[1].text_offset, 4U);
  EXPECT_TRUE(estimate_words("   ", 1000).empty());
}

TEST(UpstreamParse, VoiceListsOfBothShapes) {
  const auto kokoro = parse_openai_voices(R"({"voices":["af_bella","am_adam",""]})");
  ASSERT_EQ(kokoro.size(), 2U);
  EXPECT_EQ(kokoro[0].id, "af_bella");
  const auto objects = parse_openai_voices(R"([{"id":"x","name":"X","language":"en-US","gender":"Female"}])");
  ASSERT_EQ(objects.size(), 1U);
  EXPECT_EQ((objects[0].language), "en");
  EXPECT_EQ((objects[0].gender), "female");
  const auto eleven = parse_elevenlabs_voices(
      R"({"voices":[{"voice_id":"21m00Tcm4TlvDq8ikWAM","name":"Rachel","labels":{"gender":"female","language":"en"}},{"name":"no id"}]})");
  ASSERT_EQ(eleven.size(), 1U);
  EXPECT_EQ(eleven[0].name, "Rachel");
  EXPECT_TRUE(parse_elevenlabs_voices("not json").empty());
}

TEST(UpstreamParse, ErrorBodiesAreSummarisedAndContentRefusalsRecognised) {
  const std::string openai = R"({"error":{"message":"rejected by moderation","code":"content_policy_violation"}})";
  EXPECT_EQ(error_summary(openai), "rejected by moderation");
  EXPECT_TRUE(is_content_refusal(openai));
  EXPECT_TRUE(is_content_refusal(R"({"detail":{"status":"content_against_policy","message":"no"}})"));
  EXPECT_FALSE(is_content_refusal(R"({"detail":{"status":"voice_not_found","message":"unknown voice"}})"));
  EXPECT_FALSE(is_content_refusal("policy words outside JSON do not count"));
  EXPECT_EQ(error_summary(std::string(500, 'x')).size(), 200U);
  EXPECT_EQ(error_summary("a\nb"), "a b");
}

}  // namespace
}  // namespace mediagen::engines
