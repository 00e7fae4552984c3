// The sound-effect engine end to end: prompt in, MP3 out, decoded and measured the way a listener
// would judge it (level, length, noise against tone, loudness of a modifier), not by reading
// the engine's parameters back.
#include "mediagen/engines/sfx.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "unit/engines/audio_measures.hpp"

namespace mediagen::engines {
namespace {

using namespace testing;

struct Heard {
  std::string mp3;
  std::int64_t reported_ms = 0;  // Audio::duration_ms
  DecodedMp3 decoded;
  Mono mono;
};

Heard hear(const std::string& prompt, std::optional<std::int64_t> duration_ms, std::uint64_t seed = 1) {
  SfxEngine engine;
  auto audio = engine.generate({prompt, duration_ms, seed});
  EXPECT_TRUE(audio) << prompt << ": " << (audio ? "" : audio.error().detail);
  if (!audio) return {};
  EXPECT_EQ(audio->sample_rate, kSfxSampleRate);
  EXPECT_TRUE(audio->words.empty());
  Heard h{audio->mp3, audio->duration_ms, decode_mp3(audio->mp3), {}};
  EXPECT_TRUE(h.decoded.ok) << h.decoded.error;
  EXPECT_EQ(h.decoded.channels, 1);
  EXPECT_EQ(h.decoded.rate, kSfxSampleRate);
  h.mono = to_mono(h.decoded);
  return h;
}

// The interface's length contract: within 2 % or 15 ms, whichever is larger.
std::int64_t tolerance_ms(std::int64_t requested) { return std::max<std::int64_t>(15, requested * 2 / 100); }

TEST(SfxEngine, EveryRecipeIsAudibleLevelledAndAsLongAsAsked) {
  const auto names = sfx_recipe_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::int64_t requested = 700 + 150 * static_cast<std::int64_t>(i % 5);  // 0.7..1.3 s
    const std::string prompt(names[i]);
    const Heard h = hear(prompt, requested, 100 + i);
    SCOPED_TRACE(prompt);
    EXPECT_GT(rms_dbfs(h.mono.samples), -45.0);
    EXPECT_LT(rms_dbfs(h.mono.samples), -15.0);  // continuous sounds held down (-16 dBFS and the codec)
    EXPECT_LT(peak_dbfs(h.decoded), -1.0);
    EXPECT_LE(std::abs(h.decoded.duration_ms() - requested), requested * 5 / 100);
    EXPECT_LE(std::abs(h.decoded.duration_ms() - requested), tolerance_ms(requested));
    EXPECT_LE(std::abs(h.reported_ms - h.decoded.duration_ms()), 1);
  }
}

TEST(SfxEngine, TheShortestAndLongestLengthsDecodeToTheRequest) {
  for (const std::int64_t requested : {500, 501, 733, 1500, 9999, 22000}) {
    const Heard h = hear(requested == 22000 ? "rain" : "bell", requested);
    EXPECT_LE(std::abs(h.decoded.duration_ms() - requested), tolerance_ms(requested)) << requested;
    EXPECT_GT(rms_dbfs(h.mono.samples), -45.0) << requested;
  }
}

TEST(SfxEngine, EveryRecipeIsAudibleAtTheShortestLengthWhateverTheModifiers) {
  // Slow spreads events out, and quiet, distant and light lower the level together: the shortest
  // render still holds a sound, and a decoder still hears it.
  for (auto name : sfx_recipe_names()) {
    const std::string prompt = "slow quiet distant light " + std::string(name);
    const Heard h = hear(prompt, kSfxMinDurationMs, 3);
    EXPECT_GT(rms_dbfs(h.mono.samples), -50.0) << prompt;
    EXPECT_LE(std::abs(h.decoded.duration_ms() - kSfxMinDurationMs), tolerance_ms(kSfxMinDurationMs)) << prompt;
  }
}

TEST(SfxEngine, NeitherEndClicks) {
  // The stream starts and ends near silence: the first and last 2 ms of the decoded audio
  // (encoder delay aside, which is silence anyway) stay far below the peak.
  for (const char* prompt : {"rain", "engine hum", "siren", "explosion"}) {
    const Heard h = hear(prompt, 1000);
    const auto& s = h.mono.samples;
    const std::size_t edge = 88;
    float head = 0, tail = 0;
    for (std::size_t i = 0; i < edge; ++i) head = std::max(head, std::abs(s[i]));
    for (std::size_t i = s.size() - edge; i < s.size(); ++i) tail = std::max(tail, std::abs(s[i]));
    EXPECT_LT(head, 0.01f) << prompt;
    EXPECT_LT(tail, 0.01f) << prompt;
  }
}

TEST(SfxEngine, NoiseRecipesSoundLikeNoiseAndTonalOnesLikeTones) {
  for (const char* noisy : {"rain", "wind", "дождь"}) {
    const Heard h = hear(noisy, 2000);
    EXPECT_GT(spectral_flatness(h.mono), 0.15) << noisy;
    EXPECT_LT(tonal_peak_db(h.mono), 20.0) << noisy;
  }
  for (const char* tonal : {"bell", "alarm beep", "колокол"}) {
    const Heard h = hear(tonal, 2000);
    EXPECT_LT(spectral_flatness(h.mono), 0.05) << tonal;
    EXPECT_GT(tonal_peak_db(h.mono), 35.0) << tonal;
  }
}

TEST(SfxEngine, DistantAndQuietAreQuieterLoudIsLouder) {
  const double thunder = rms_dbfs(hear("thunder", 3000, 5).mono.samples);
  EXPECT_LT(rms_dbfs(hear("distant thunder", 3000, 5).mono.samples), thunder - 4.0);
  EXPECT_LT(rms_dbfs(hear("далёкий гром", 3000, 5).mono.samples), thunder - 4.0);
  const double rain = rms_dbfs(hear("rain", 1500, 5).mono.samples);
  EXPECT_LT(rms_dbfs(hear("quiet rain", 1500, 5).mono.samples), rain - 4.0);
  EXPECT_GT(rms_dbfs(hear("loud rain", 1500, 5).mono.samples), rain + 2.0);
}

TEST(SfxEngine, DistantIsDarker) {
  // Less of the energy above 3 kHz: the air takes the highs.
  const auto high_share = [](const Mono& m) {
    double high = 0, all = 0;
    for (const auto& p : power_frames(m)) {
      for (std::size_t k = 1; k < p.size(); ++k) {
        all += p[k];
        if (k >= bin_of(3000, m.rate)) high += p[k];
      }
    }
    return high / all;
  };
  EXPECT_LT(high_share(hear("distant rain", 1500, 9).mono), 0.5 * high_share(hear("rain", 1500, 9).mono));
}

// Power-weighted mean frequency of the loud frames, Hz.
double spectral_centroid(const Mono& m) {
  double weighted = 0, total = 0;
  for (const auto& p : power_frames(m)) {
    for (std::size_t k = 1; k < p.size(); ++k) {
      weighted += p[k] * static_cast<double>(k) * static_cast<double>(m.rate) / kFrame;
      total += p[k];
    }
  }
  return total > 0 ? weighted / total : 0;
}

TEST(SfxEngine, HeavyIsLowerAndLouderThanLight) {
  EXPECT_LT(spectral_centroid(hear("heavy bell", 2000, 4).mono), spectral_centroid(hear("light bell", 2000, 4).mono));
  EXPECT_GT(rms_dbfs(hear("heavy footsteps", 2000, 4).mono.samples),
            rms_dbfs(hear("light footsteps", 2000, 4).mono.samples) + 3.0);
}

TEST(SfxEngine, MetallicRingsAndEchoFillsTheGaps) {
  EXPECT_GT(tonal_peak_db(hear("metallic rain", 1500, 6).mono), tonal_peak_db(hear("rain", 1500, 6).mono) + 4.0);
  EXPECT_GT(rms_dbfs(hear("gunshot in a cave", 2000, 6).mono.samples),
            rms_dbfs(hear("gunshot", 2000, 6).mono.samples) + 1.5);
}

TEST(SfxEngine, FastAndSlowChangeTheRate) {
  EXPECT_GT(onset_rate(hear("fast clock", 4000, 3).mono), onset_rate(hear("slow clock", 4000, 3).mono) + 0.5);
}

TEST(SfxEngine, AnUnknownPromptPlaysTheFallbackTexture) {
  const Heard h = hear("quarterly report spreadsheet", 1000);
  EXPECT_GT(rms_dbfs(h.mono.samples), -45.0);
  EXPECT_LT(peak_dbfs(h.decoded), -1.0);
  EXPECT_NE(hear("quarterly report spreadsheet", 1000, 2).mp3, h.mp3);  // it follows the seed
}

TEST(SfxEngine, TheSameRequestGivesTheSameBytesAnotherSeedOtherDetails) {
  for (const char* prompt : {"rain and thunder", "bell", "dog bark", "heavy distant explosion"}) {
    const Heard a = hear(prompt, 1200, 42), b = hear(prompt, 1200, 42), c = hear(prompt, 1200, 43);
    EXPECT_EQ(a.mp3, b.mp3) << prompt;
    EXPECT_NE(a.mp3, c.mp3) << prompt;
  }
}

TEST(SfxEngine, WithoutADurationItPlaysThePromptsDefault) {
  for (const char* prompt : {"gunshot", "short bell", "coin pickup"}) {
    const std::int64_t expected = sfx_default_duration_ms(prompt);
    const Heard h = hear(prompt, std::nullopt);
    EXPECT_LE(std::abs(h.decoded.duration_ms() - expected), tolerance_ms(expected)) << prompt;
  }
}

TEST(SfxEngine, ALengthOutsideTheBoundsIsATechnicalFailureNotACrash) {
  SfxEngine engine;
  for (const std::int64_t ms : {-5LL, 0LL, 499LL, 22001LL, 1LL << 40}) {
    auto audio = engine.generate({"rain", ms, 1});
    ASSERT_FALSE(audio) << ms;
    EXPECT_EQ(audio.error().kind, FailureKind::technical);
  }
}

TEST(SfxEngine, ManyThreadsAtOnceGiveTheSameBytesAsOne) {
  const std::vector<std::string> prompts = {"rain", "bell", "crowd murmur", "laser zap"};
  std::vector<std::string> alone;
  SfxEngine engine;
  for (const auto& p : prompts) alone.push_back(engine.generate({p, 600, 7}).value().mp3);
  std::vector<std::string> together(prompts.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    threads.emplace_back([&, i] { together[i] = engine.generate({prompts[i], 600, 7}).value().mp3; });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(together, alone);
}

}  // namespace
}  // namespace mediagen::engines
