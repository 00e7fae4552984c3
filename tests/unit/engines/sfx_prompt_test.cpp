// The sound-effect engine's reading of prompts: which recipes a prompt picks (English and
// Russian), the fallback, and the default length the orders code prices before rendering.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "mediagen/engines/sfx.hpp"

namespace mediagen::engines {
namespace {

using Names = std::vector<std::string_view>;

TEST(SfxPrompt, AtLeastTwentyFiveDistinctRecipesAndTheFallbackAmongThem) {
  const auto names = sfx_recipe_names();
  EXPECT_GE(names.size(), 26u);  // 25 asked for, plus the fallback
  EXPECT_EQ(std::set<std::string_view>(names.begin(), names.end()).size(), names.size());
  EXPECT_NE(std::find(names.begin(), names.end(), kSfxFallbackRecipe), names.end());
}

TEST(SfxPrompt, EveryRecipeIsPickedByItsOwnName) {
  for (auto name : sfx_recipe_names()) {
    EXPECT_EQ(sfx_recipe_for(name), name);
    EXPECT_EQ(sfx_recipes_for(name), Names{name}) << name;
  }
}

TEST(SfxPrompt, EnglishPromptsPickWhatAUserMeans) {
  const std::vector<std::pair<std::string, std::string_view>> cases = {
      {"Heavy RAIN on a tin roof", "rain"},
      {"a distant thunderstorm", "thunder"},
      {"howling wind", "wind"},
      {"windy day", "wind"},
      {"ocean waves at the beach", "sea waves"},
      {"crackling campfire", "fire"},
      {"water dripping in a cave", "water drip"},
      {"big explosion", "explosion"},
      {"pistol gunshot", "gunshot"},
      {"window glass shattering", "glass break"},
      {"someone knocks on the door", "door knock"},
      {"door creaking open", "door creak"},
      {"footsteps on gravel", "footsteps"},
      {"car engine idling", "engine hum"},
      {"old clock ticking", "clock tick"},
      {"alarm beeping", "alarm beep"},
      {"church bells", "bell"},
      {"police siren", "siren"},
      {"birds chirping in the morning", "bird chirp"},
      {"a dog barking", "dog bark"},
      {"slow heartbeat", "heartbeat"},
      {"crowd chatter in a cafe", "crowd murmur"},
      {"audience applause", "applause"},
      {"fast whoosh", "whoosh"},
      {"mouse click", "click"},
      {"bubble pop", "pop"},
      {"sci-fi laser blaster", "laser zap"},
      {"coin pickup", "coin pickup"},
  };
  for (const auto& [prompt, recipe] : cases) EXPECT_EQ(sfx_recipe_for(prompt), recipe) << prompt;
}

TEST(SfxPrompt, RussianPromptsPickTheSameRecipes) {
  const std::vector<std::pair<std::string, std::string_view>> cases = {
      {"дождь", "rain"},          {"Сильный ливень", "rain"},     {"гром", "thunder"},
      {"далёкая гроза", "thunder"}, {"колокол", "bell"},          {"звон колоколов", "bell"},
      {"ветер", "wind"},          {"морские волны", "sea waves"}, {"треск костра", "fire"},
      {"взрыв", "explosion"},     {"выстрел из пистолета", "gunshot"}, {"лай собаки", "dog bark"},
      {"стук в дверь", "door knock"}, {"скрип двери", "door creak"},   {"шаги", "footsteps"},
      {"пение птиц", "bird chirp"}, {"сердцебиение", "heartbeat"},     {"аплодисменты", "applause"},
      {"тиканье часов", "clock tick"}, {"капли воды", "water drip"},   {"лазер", "laser zap"},
      {"звук монеты", "coin pickup"}, {"сирена скорой", "siren"},      {"разбитое стекло", "glass break"},
  };
  for (const auto& [prompt, recipe] : cases) EXPECT_EQ(sfx_recipe_for(prompt), recipe) << prompt;
}

TEST(SfxPrompt, ExactWordStemsDoNotCatchLongerWords) {
  // "light" is a modifier only as a whole word: lightning is thunder, and light rain is rain.
  EXPECT_EQ(sfx_recipes_for("lightning"), Names{"thunder"});
  EXPECT_EQ(sfx_recipes_for("light rain"), Names{"rain"});
  EXPECT_EQ(sfx_recipe_for("cartoon"), kSfxFallbackRecipe);  // "car" only as a word
}

TEST(SfxPrompt, SeveralRecipesMixInTheOrderNamedUpToThree) {
  EXPECT_EQ(sfx_recipes_for("rain and thunder"), (Names{"rain", "thunder"}));
  EXPECT_EQ(sfx_recipes_for("thunder over the rain"), (Names{"thunder", "rain"}));
  EXPECT_EQ(sfx_recipes_for("дождь и гром"), (Names{"rain", "thunder"}));
  EXPECT_EQ(sfx_recipes_for("wind, rain, thunder, birds and a dog").size(), kMaxSfxLayers);
  EXPECT_EQ(sfx_recipe_for("wind, rain, thunder, birds and a dog"), "wind");
}

TEST(SfxPrompt, AWeakWordPicksARecipeOnlyWhenNothingElseDoes) {
  EXPECT_EQ(sfx_recipes_for("door"), Names{"door knock"});
  EXPECT_EQ(sfx_recipes_for("creaky door"), Names{"door creak"});
  EXPECT_EQ(sfx_recipes_for("стук сердца"), Names{"heartbeat"});
}

TEST(SfxPrompt, AnUnknownPromptGetsTheFallbackNeverAnError) {
  const std::vector<std::string> prompts = {"", "   ", "qwerty zxcv", "a spreadsheet of quarterly numbers",
                                   "\xff\xfe\x80 not utf-8 \xc3", std::string(5000, 'x'), "синтаксис"};
  for (const auto& prompt : prompts) {
    EXPECT_EQ(sfx_recipe_for(prompt), kSfxFallbackRecipe) << prompt.substr(0, 40);
    const auto ms = sfx_default_duration_ms(prompt);
    EXPECT_GE(ms, kSfxMinDurationMs);
    EXPECT_LE(ms, kSfxMaxDurationMs);
  }
}

TEST(SfxPrompt, DefaultsFollowTheRecipeAndTheLengthModifiers) {
  EXPECT_EQ(sfx_default_duration_ms("gunshot"), 1500);
  EXPECT_EQ(sfx_default_duration_ms("rain"), 10000);
  EXPECT_LT(sfx_default_duration_ms("short rain"), sfx_default_duration_ms("rain"));
  EXPECT_LT(sfx_default_duration_ms("rain"), sfx_default_duration_ms("long rain"));
  EXPECT_LT(sfx_default_duration_ms("короткий звонок"), sfx_default_duration_ms("долгий звонок"));
  // A mix lasts as long as its longest recipe wants.
  EXPECT_EQ(sfx_default_duration_ms("gunshot in the rain"), sfx_default_duration_ms("rain"));
}

TEST(SfxPrompt, EveryDefaultLiesWithinTheApiBoundsForEveryModifierMix) {
  const std::vector<std::string> modifiers = {"",      "distant", "heavy", "light", "short", "long", "loud",
                                              "quiet", "slow",    "fast",  "close", "metal", "echo", "коротк",
                                              "долг",  "тихий"};
  for (auto name : sfx_recipe_names()) {
    for (std::size_t i = 0; i < modifiers.size(); ++i) {
      for (std::size_t j = i; j < modifiers.size(); ++j) {
        const auto& a = modifiers[i];
        const auto& b = modifiers[j];
        for (const char* extra : {"", " short short", " long long long"}) {
          const std::string prompt = a + " " + b + " " + std::string(name) + std::string(extra);
          const auto ms = sfx_default_duration_ms(prompt);
          EXPECT_GE(ms, kSfxMinDurationMs) << prompt;
          EXPECT_LE(ms, kSfxMaxDurationMs) << prompt;
        }
      }
    }
  }
}

}  // namespace
}  // namespace mediagen::engines
