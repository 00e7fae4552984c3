// Voice features: what they measure is what a listener hears of a voice, and they tell voices
// apart across different texts (the basis of voice search and clone matching).
#include "mediagen/engines/voice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>

#include "mediagen/engines/codec.hpp"
#include "mediagen/engines/speech.hpp"
#include "unit/engines/wav_file.hpp"

namespace mediagen::engines {
namespace {

// A voiced buzz at f0 (harmonics falling 6 dB per octave), with a slow syllable envelope.
std::vector<float> buzz(double f0, double seconds, int rate = 16000, double syllables_per_second = 4) {
  std::vector<float> out(static_cast<std::size_t>(seconds * rate));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double t = static_cast<double>(i) / rate;
    double v = 0;
    for (int h = 1; h * f0 < rate / 2.0; ++h) v += std::sin(2 * std::numbers::pi * f0 * h * t) / h;
    const double envelope = 0.5 - 0.5 * std::cos(2 * std::numbers::pi * syllables_per_second * t);
    out[i] = static_cast<float>(0.2 * v * envelope);
  }
  return out;
}

TEST(VoiceFeatures, PitchIsTheBuzzsPitch) {
  for (const double f0 : {90.0, 150.0, 240.0}) {
    const auto f = voice_features(buzz(f0, 3.0), 16000);
    ASSERT_TRUE(f);
    EXPECT_NEAR((*f)[24], 12.0 * std::log2(f0 / 55.0), 0.5) << f0;
    EXPECT_LT((*f)[25], 1.0) << "a steady pitch has no spread";
    EXPECT_GT((*f)[26], 0.8) << "a buzz is voiced";
  }
}

TEST(VoiceFeatures, PaceFollowsTheSyllables) {
  const auto slow = voice_features(buzz(120, 6.0, 16000, 2), 16000);
  const auto fast = voice_features(buzz(120, 6.0, 16000, 5), 16000);
  ASSERT_TRUE(slow && fast);
  EXPECT_NEAR((*slow)[27], 2.0, 0.7);
  EXPECT_NEAR((*fast)[27], 5.0, 1.5);
}

TEST(VoiceFeatures, NothingToDescribeIsNullopt) {
  EXPECT_FALSE(voice_features(std::vector<float>(48000, 0.0f), 16000));
  EXPECT_FALSE(voice_features(buzz(120, 0.3), 16000));
  EXPECT_FALSE(voice_features(buzz(120, 3.0, 8000), 8000));
  EXPECT_FALSE(voice_features(std::vector<float>{}, 16000));
}

TEST(VoiceFeatures, LevelDoesNotMatter) {
  auto loud = buzz(130, 3.0);
  auto quiet = loud;
  for (auto& s : quiet) s *= 0.1f;
  const auto a = voice_features(loud, 16000), b = voice_features(quiet, 16000);
  ASSERT_TRUE(a && b);
  EXPECT_LT(voice_distance(*a, *b), 0.05);
  EXPECT_DOUBLE_EQ(voice_score(0), 1.0);
}

// 40 English voices (espeak-ng's variants), each described from one text and looked up with
// another: the own voice should come first in at least 80 % and in the top 5 in at least 95 %.
TEST(VoiceFeatures, FortyVoicesFindThemselvesFromAnotherText) {
  const std::string stored_text =
      "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs, "
      "and then we shall see how vexingly quick daft zebras jump.";
  const std::string query_text =
      "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
      "Nobody knows how long it will last this evening.";
  std::vector<std::string> variants;
  for (const auto& v : list_espeak_variants()) variants.push_back(v.key);
  std::sort(variants.begin(), variants.end());
  ASSERT_GE(variants.size(), 40u);
  variants.resize(40);

  EspeakEngine engine;
  const auto describe = [&](const std::string& text, const std::string& variant) {
    auto pcm = engine.synthesize_pcm({.text = text, .espeak_voice = "en-us", .variant = variant});
    EXPECT_TRUE(pcm) << variant;
    auto f = voice_features(std::span<const std::int16_t>(pcm->samples), pcm->sample_rate);
    EXPECT_TRUE(f) << variant;
    return f.value_or(VoiceFeatures{});
  };
  std::vector<VoiceFeatures> stored;
  for (const auto& v : variants) stored.push_back(describe(stored_text, v));
  int first = 0, top5 = 0;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const auto query = describe(query_text, variants[i]);
    const double own = voice_distance(query, stored[i]);
    std::size_t closer = 0;
    for (std::size_t j = 0; j < stored.size(); ++j) {
      if (j != i && voice_distance(query, stored[j]) < own) ++closer;
    }
    if (closer == 0) ++first;
    if (closer < 5) ++top5;
    if (closer > 0) std::cout << "  " << variants[i] << ": " << closer << " voices closer\n";
  }
  std::cout << "voice search over " << variants.size() << " voices: first " << first << ", top 5 " << top5 << "\n";
  EXPECT_GE(first, 32);  // 80 %
  EXPECT_GE(top5, 38);   // 95 %
}


// An uploaded sample goes through audio intake (decoded, resampled to 16 kHz) before it is
// described, while the catalogue's descriptions come from the engine's own 22,050 Hz PCM: the
// voice is still found.
TEST(VoiceFeatures, AnUploadAt16kHzFindsTheVoiceDescribedAt22kHz) {
  std::vector<std::string> variants;
  for (const auto& v : list_espeak_variants()) variants.push_back(v.key);
  std::sort(variants.begin(), variants.end());
  variants.resize(std::min<std::size_t>(variants.size(), 12));
  EspeakEngine engine;
  std::vector<VoiceFeatures> stored;
  for (const auto& v : variants) {
    auto pcm = engine.synthesize_pcm({.text = "Pack my box with five dozen liquor jugs, said the old sailor.",
                                      .espeak_voice = "en-us", .variant = v});
    ASSERT_TRUE(pcm);
    stored.push_back(*voice_features(std::span<const std::int16_t>(pcm->samples), pcm->sample_rate));
  }
  int found = 0;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    auto pcm = engine.synthesize_pcm({.text = "Nobody knows how long the rainbow will last this evening.",
                                      .espeak_voice = "en-us", .variant = variants[i]});
    ASSERT_TRUE(pcm);
    auto upload = read_audio(testing::wav_file(*pcm));
    ASSERT_TRUE(upload) << variants[i];
    ASSERT_EQ(upload->sample_rate, 16000);
    const auto query = voice_features(std::span<const float>(upload->samples), upload->sample_rate);
    ASSERT_TRUE(query);
    std::size_t best = 0;
    for (std::size_t j = 1; j < stored.size(); ++j) {
      if (voice_distance(*query, stored[j]) < voice_distance(*query, stored[best])) best = j;
    }
    if (best == i) ++found;
  }
  std::cout << "uploads found first: " << found << " of " << variants.size() << "\n";
  EXPECT_GE(found, static_cast<int>(variants.size()) * 8 / 10);
}

}  // namespace
}  // namespace mediagen::engines
