// Prompt words: what the sound-effect and music tables see of a client's prompt.
#include "mediagen/engines/prompt.hpp"

#include <gtest/gtest.h>

#include "mediagen/core/utf8.hpp"

namespace mediagen::engines {
namespace {

using Words = std::vector<std::string>;

TEST(PromptWords, LowerCasesLatinAndCyrillicAndSplitsOnEverythingElse) {
  EXPECT_EQ(prompt_words("Rain on a TIN-roof, 2x!"), (Words{"rain", "on", "a", "tin", "roof", "2x"}));
  EXPECT_EQ(prompt_words("Тихий ДОЖДЬ; Ёлка"), (Words{"тихий", "дождь", "елка"}));
  EXPECT_EQ(prompt_words("  \t\n"), Words{});
}

TEST(PromptWords, InvalidBytesSeparateWordsAndNeverThrow) {
  EXPECT_EQ(prompt_words(std::string("bell\xff\xfe" "chime\xd0", 12)), (Words{"bell", "chime"}));
  EXPECT_EQ(prompt_words("日本語 drum"), (Words{"drum"}));
}

TEST(PromptWords, LongInputIsBoundedAndCutAtCodePoints) {
  std::string many;
  for (int i = 0; i < 200; ++i) many += "w ";
  EXPECT_EQ(prompt_words(many).size(), kMaxPromptWords);
  std::string long_word;
  for (int i = 0; i < 100; ++i) long_word += "я";
  const auto words = prompt_words(long_word);
  ASSERT_EQ(words.size(), 1u);
  EXPECT_LE(words[0].size(), kMaxPromptWordBytes);
  EXPECT_TRUE(is_valid_utf8(words[0]));
}

TEST(PromptWords, StemsMatchInflectionsAndPlurals) {
  const auto words = prompt_words("шум дождя and church bells");
  EXPECT_TRUE(has_stem(words, "дожд"));
  EXPECT_TRUE(has_stem(words, "bell"));
  EXPECT_FALSE(has_stem(words, "thunder"));
}

}  // namespace
}  // namespace mediagen::engines
