// The engine's pure parts: UTF-8 checks, word-event mapping, voice choice, settings mapping.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engines/speech/speech_text.hpp"
#include "engines/speech/speech_voice.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::engines {
namespace {

using detail::map_word_events;
using detail::RawWordEvent;

std::vector<std::string> spans(const std::string& text, const std::vector<WordTiming>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) out.push_back(text.substr(w.text_offset, w.text_length));
  return out;
}

TEST(SpeechText, ValidatesUtf8) {
  EXPECT_TRUE(detail::is_valid_utf8(""));
  EXPECT_TRUE(detail::is_valid_utf8("plain ascii"));
  EXPECT_TRUE(detail::is_valid_utf8("Привет, 世界 😀"));
  EXPECT_FALSE(detail::is_valid_utf8("\xC3"));              // truncated
  EXPECT_FALSE(detail::is_valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(detail::is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(detail::is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(detail::is_valid_utf8("a\x80z"));            // stray continuation
}

TEST(SpeechText, FindsBlankText) {
  EXPECT_TRUE(detail::blank(""));
  EXPECT_TRUE(detail::blank(" \t\r\n\v\f"));
  EXPECT_TRUE(detail::blank("\u00A0\u2003\u3000\uFEFF"));
  EXPECT_FALSE(detail::blank(" . "));
  EXPECT_FALSE(detail::blank("\u00A0я"));
}

TEST(SpeechText, MapsCodePointPositionsToByteOffsets) {
  // As espeak-ng reports "Привет, мир. Это тест." (1-based code points).
  const std::string text = "Привет, мир. Это тест.";
  const std::vector<RawWordEvent> events = {{1, 6, 0}, {9, 3, 645}, {14, 3, 1216}, {18, 4, 1395}};
  const auto words = map_word_events(text, events, 50);
  EXPECT_EQ(spans(text, words), (std::vector<std::string>{"Привет", "мир", "Это", "тест"}));
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[0].text_offset, 0u);
  EXPECT_EQ(words[1].text_offset, std::string("Привет, ").size());
  EXPECT_EQ(words[0].start_ms, 50);
  EXPECT_EQ(words[3].start_ms, 1445);
}

TEST(SpeechText, TimesEachWordOnce) {
  // "It costs $123.45 on 3/4/2021": espeak times each spoken word of the number and the date.
  const std::string text = "It costs $123.45 on 3/4/2021.";
  const std::vector<RawWordEvent> events = {{1, 2, 0},     {4, 5, 155},   {10, 1, 584},  {11, 6, 869},
                                            {12, 6, 1528}, {12, 6, 1966}, {18, 2, 3046}, {21, 1, 3221},
                                            {22, 1, 3458}, {23, 1, 3799}, {25, 4, 4373}, {26, 4, 4543}};
  const auto words = map_word_events(text, events, 0);
  EXPECT_EQ(spans(text, words), (std::vector<std::string>{"It", "costs", "$", "123.45", "on", "3", "/", "4", "2021"}));
}

TEST(SpeechText, MovesEventsOffWhitespace) {
  // espeak points "т.е." at the space before it.
  const std::string text = "руб., т.е. много";
  const std::vector<RawWordEvent> events = {{1, 3, 0}, {6, 1, 300}, {12, 5, 900}};
  const auto words = map_word_events(text, events, 0);
  EXPECT_EQ(spans(text, words), (std::vector<std::string>{"руб", "т.е", "много"}));
  EXPECT_EQ(words[1].start_ms, 300);
}

TEST(SpeechText, DropsExpansionWordsThatLandOnWhitespace) {
  // An emoji spoken as two words: espeak's second word points at the following space; the next
  // word has an event of its own, which wins.
  const std::string text = "😀 hi";
  const std::vector<RawWordEvent> events = {{1, 1, 0}, {2, 1, 307}, {3, 2, 597}};
  const auto words = map_word_events(text, events, 0);
  EXPECT_EQ(spans(text, words), (std::vector<std::string>{"😀", "hi"}));
  EXPECT_EQ(words[1].start_ms, 597);
}

TEST(SpeechText, IgnoresEventsOutsideTheText) {
  const std::string text = "one two";
  const std::vector<RawWordEvent> events = {{0, 1, 0}, {1, 3, 10}, {5, 3, 20}, {9, 1, 30}, {100, 2, 40}};
  const auto words = map_word_events(text, events, 0);
  EXPECT_EQ(spans(text, words), (std::vector<std::string>{"one", "two"}));
}

TEST(SpeechText, KeepsTimingsMonotonic) {
  const std::string text = "a b c";
  const std::vector<RawWordEvent> events = {{1, 1, 100}, {3, 1, 90}, {5, 1, 200}, {3, 1, 300}};
  const auto words = map_word_events(text, events, 0);
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[1].start_ms, 100);
  EXPECT_EQ(words[2].start_ms, 200);
}

TEST(EspeakParameters, MapsTheVoiceSettings) {
  const auto neutral = espeak_parameters({});
  EXPECT_EQ(neutral.rate_wpm, 175);
  EXPECT_EQ(neutral.pitch, 50);
  EXPECT_EQ(neutral.pitch_range, 50);
  EXPECT_EQ(neutral.volume, 100);
  const auto defaults = espeak_parameters({.stability = 0.5, .similarity_boost = 0.75, .speed = 1.0, .use_speaker_boost = true});
  EXPECT_EQ(defaults.rate_wpm, neutral.rate_wpm);
  EXPECT_EQ(defaults.pitch, neutral.pitch);
  EXPECT_EQ(defaults.pitch_range, neutral.pitch_range);
  EXPECT_EQ(defaults.volume, neutral.volume);

  EXPECT_EQ(espeak_parameters({.speed = 0.7}).rate_wpm, 122);
  EXPECT_EQ(espeak_parameters({.speed = 1.2}).rate_wpm, 210);
  EXPECT_EQ(espeak_parameters({.stability = 1.0}).pitch_range, 25);
  EXPECT_EQ(espeak_parameters({.stability = 0.0}).pitch_range, 75);
  EXPECT_EQ(espeak_parameters({.similarity_boost = 0.0}).pitch, 20);
  EXPECT_EQ(espeak_parameters({.similarity_boost = 1.0}).pitch, 60);
  EXPECT_EQ(espeak_parameters({.use_speaker_boost = false}).volume, 75);
  // Out-of-range values (validated upstream) are clamped to espeak-ng's range.
  EXPECT_EQ(espeak_parameters({.speed = 100.0}).rate_wpm, 450);
  EXPECT_EQ(espeak_parameters({.stability = -3.0}).pitch_range, 75);
}

class VoiceChoice : public ::testing::Test {
 protected:
  std::string resolve(std::string_view voice, std::string_view variant = "", std::string_view language = "") {
    auto r = detail::resolve_voice(voices_, variants_, voice, variant, language);
    return r ? *r : "error: " + r.error().detail;
  }
  std::vector<EspeakVoiceInfo> voices_ = list_espeak_voices();
  std::vector<EspeakVariantInfo> variants_ = list_espeak_variants();
};

TEST_F(VoiceChoice, MatchesIdentifierFileNameNameOrLanguage) {
  EXPECT_EQ(resolve("gmw/en-US"), "gmw/en-US");
  EXPECT_EQ(resolve("GMW/EN-us"), "gmw/en-US");
  EXPECT_EQ(resolve("en-US"), "gmw/en-US");
  EXPECT_EQ(resolve("en-us"), "gmw/en-US");
  EXPECT_EQ(resolve("English (America)"), "gmw/en-US");
  EXPECT_EQ(resolve("ru"), "zle/ru");
  EXPECT_EQ(resolve("en"), "gmw/en");
  EXPECT_EQ(resolve("en-gb"), "gmw/en");
  EXPECT_EQ(resolve("en_GB"), "gmw/en");
  EXPECT_EQ(resolve("zh"), "sit/cmn");
  EXPECT_EQ(resolve("pt-br"), "roa/pt-BR");
  EXPECT_EQ(resolve("nosuch").rfind("error: unknown espeak-ng voice", 0), 0u);
}

TEST_F(VoiceChoice, AppliesTheVariant) {
  EXPECT_EQ(resolve("en-us", "m3"), "gmw/en-US+m3");
  EXPECT_EQ(resolve("en-us", "M3"), "gmw/en-US+m3");
  EXPECT_EQ(resolve("ru", "alicia"), "zle/ru+Alicia");
  EXPECT_EQ(resolve("ru", "Mr serious"), "zle/ru+Mr serious");
  EXPECT_EQ(resolve("ru", "nosuch").rfind("error: unknown espeak-ng variant", 0), 0u);
}

TEST_F(VoiceChoice, LanguageCodeKeepsAVoiceThatSpeaksIt) {
  EXPECT_EQ(resolve("en-us", "", "en"), "gmw/en-US");
  EXPECT_EQ(resolve("en-us", "m3", "EN"), "gmw/en-US+m3");
  EXPECT_EQ(resolve("gmw/en", "", "en-gb"), "gmw/en");
}

TEST_F(VoiceChoice, LanguageCodeOtherwiseSelectsTheLanguageVoice) {
  EXPECT_EQ(resolve("en-us", "", "ru"), "zle/ru");
  EXPECT_EQ(resolve("en-us", "f2", "de"), "gmw/de+f2");
  EXPECT_EQ(resolve("gmw/en", "", "en-us"), "gmw/en-US");
  EXPECT_EQ(resolve("", "", "ru"), "zle/ru");
  EXPECT_EQ(resolve("en-us", "", "zz").rfind("error: no espeak-ng voice speaks language_code", 0), 0u);
  EXPECT_EQ(resolve("", "", "").rfind("error: no espeak-ng voice", 0), 0u);
}

}  // namespace
}  // namespace mediagen::engines
