// Clone profiles: the builder picks the nearest base and calibrates pitch, range and rate; a
// clone of a catalogue voice speaks closer to that voice than the default voice does.
#include "mediagen/engines/voice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "mediagen/engines/codec.hpp"
#include "mediagen/engines/speech.hpp"
#include "unit/engines/wav_file.hpp"

namespace mediagen::engines {
namespace {

// A probe whose measurements move linearly with the settings, around a base's own sound.
VoiceFeatures fake_sound(const VoiceProfile& p, float timbre) {
  VoiceFeatures f{};
  f[0] = timbre;
  f[24] = 20.0f + 0.2f * static_cast<float>(p.pitch);       // semitones
  f[25] = 0.05f * static_cast<float>(p.pitch_range);        // spread
  f[26] = 0.8f;                                             // voiced
  f[27] = 0.02f * static_cast<float>(p.rate_wpm);           // pace
  return f;
}

TEST(VoiceProfile, NearestBaseThenPitchRangeAndRateMatched) {
  const std::vector<VoiceCandidate> candidates{
      {"en-us", "m1", fake_sound({"en-us", "m1"}, 1.0f)},
      {"en-us", "f2", fake_sound({"en-us", "f2"}, 5.0f)},
      {"de", "m3", fake_sound({"de", "m3"}, 9.0f)},
  };
  const std::map<std::string, float> timbre{{"m1", 1.0f}, {"f2", 5.0f}, {"m3", 9.0f}};
  int probes = 0;
  const ProfileProbe probe = [&](const VoiceProfile& p) -> std::optional<VoiceFeatures> {
    ++probes;
    return fake_sound(p, timbre.at(p.espeak_variant));
  };
  // The speaker: the timbre of f2, pitch setting 70, range 30, rate 210.
  const auto sample = fake_sound({"x", "x", 70, 30, 210}, 5.2f);
  const auto built = build_voice_profile(sample, candidates, probe);
  ASSERT_TRUE(built);
  EXPECT_EQ(built->profile.espeak_voice, "en-us");
  EXPECT_EQ(built->profile.espeak_variant, "f2");
  EXPECT_NEAR(built->profile.pitch, 70, 1);
  EXPECT_NEAR(built->profile.pitch_range, 30, 1);
  EXPECT_NEAR(built->profile.rate_wpm, 210, 1);
  EXPECT_LT(built->distance, 0.5);
  EXPECT_GT(probes, 0);
}

TEST(VoiceProfile, NothingToBuildFrom) {
  VoiceFeatures sample{};
  EXPECT_FALSE(build_voice_profile(sample, {}, [](const VoiceProfile&) { return std::optional<VoiceFeatures>{}; }));
  const std::vector<VoiceCandidate> one{{"en-us", "", VoiceFeatures{}}};
  EXPECT_FALSE(build_voice_profile(sample, one, [](const VoiceProfile&) { return std::optional<VoiceFeatures>{}; }));
}

TEST(VoiceProfile, JsonRoundTripAndRefusals) {
  const VoiceProfile p{"gmw/en-US", "f2", 62, 35, 190};
  const auto j = voice_profile_to_json(p);
  EXPECT_EQ(voice_profile_from_json(j), p);
  auto clamped = j;
  clamped["pitch"] = 900;
  clamped["rate"] = 1;
  EXPECT_EQ(voice_profile_from_json(clamped)->pitch, 100);
  EXPECT_EQ(voice_profile_from_json(clamped)->rate_wpm, 80);
  for (const char* key : {"voice", "variant", "pitch", "range", "rate"}) {
    auto missing = j;
    missing.erase(key);
    EXPECT_FALSE(voice_profile_from_json(missing)) << key;
    auto wrong = j;
    wrong[key] = nlohmann::json::array();
    EXPECT_FALSE(voice_profile_from_json(wrong)) << key;
  }
  EXPECT_FALSE(voice_profile_from_json(nlohmann::json("x")));
  auto empty_voice = j;
  empty_voice["voice"] = "";
  EXPECT_FALSE(voice_profile_from_json(empty_voice));
}

TEST(VoiceProfile, TheEngineSpeaksWithTheProfilesSettings) {
  EspeakEngine engine;
  const std::string text = "A short sentence to measure the pitch of a voice.";
  const auto low = espeak_voice_features(engine, {"en-us", "", 10, 50, 175}, text);
  const auto high = espeak_voice_features(engine, {"en-us", "", 90, 50, 175}, text);
  const auto fast = espeak_voice_features(engine, {"en-us", "", 50, 50, 320}, text);
  const auto slow = espeak_voice_features(engine, {"en-us", "", 50, 50, 110}, text);
  ASSERT_TRUE(low && high && fast && slow);
  EXPECT_GT((*high)[24], (*low)[24] + 2) << "pitch 90 is higher than pitch 10";
  EXPECT_GT((*fast)[27], (*slow)[27]) << "rate 320 is faster than rate 110";
}


// Issue 16, Done 3: for 10 catalogue voices X (every second of 20 candidates), a sample spoken by X (uploaded as a WAV, so
// decoded and resampled by audio intake) gives a profile that speaks a third text closer to X
// than the default voice (espeak-ng's en-us, no variant) does.
TEST(VoiceProfile, TenClonesSpeakCloserToTheirVoiceThanTheDefault) {
  const std::string catalogue_text =
      "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs.";
  const std::string sample_text =
      "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
      "Nobody knows how long it will last this evening.";
  const std::string check_text =
      "Our train leaves the station at half past nine, so please be ready a little earlier than usual.";
  std::vector<std::string> variants;
  for (const auto& v : list_espeak_variants()) variants.push_back(v.key);
  std::sort(variants.begin(), variants.end());
  ASSERT_GE(variants.size(), 20u);
  variants.resize(20);

  EspeakEngine engine;
  std::vector<VoiceCandidate> candidates;
  for (const auto& v : variants) {
    auto f = espeak_voice_features(engine, {"en-us", v}, catalogue_text);
    ASSERT_TRUE(f) << v;
    candidates.push_back({"en-us", v, *f});
  }
  const auto probe = espeak_profile_probe(engine);
  const auto default_voice = espeak_voice_features(engine, {"en-us", ""}, check_text);
  ASSERT_TRUE(default_voice);
  int closer = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    const std::string& x = variants[i * 2];
    auto pcm = engine.synthesize_pcm({.text = sample_text, .espeak_voice = "en-us", .variant = x});
    ASSERT_TRUE(pcm);
    auto audio = read_audio(testing::wav_file(*pcm));
    ASSERT_TRUE(audio) << x;
    auto sample = voice_features(audio->samples, audio->sample_rate);
    ASSERT_TRUE(sample) << x;
    auto built = build_voice_profile(*sample, candidates, probe);
    ASSERT_TRUE(built) << x;
    const auto target = espeak_voice_features(engine, {"en-us", x}, check_text);
    const auto clone = espeak_voice_features(engine, built->profile, check_text);
    ASSERT_TRUE(target && clone) << x;
    const double d_clone = voice_distance(*clone, *target);
    const double d_default = voice_distance(*default_voice, *target);
    std::cout << "  " << x << ": clone (" << built->profile.espeak_variant << " pitch " << built->profile.pitch
              << " range " << built->profile.pitch_range << " rate " << built->profile.rate_wpm
              << ") distance " << d_clone << ", default voice distance " << d_default << "\n";
    if (d_clone < d_default) ++closer;
  }
  std::cout << "clones closer to their voice than the default: " << closer << " of 10\n";
  EXPECT_EQ(closer, 10);
}

}  // namespace
}  // namespace mediagen::engines
