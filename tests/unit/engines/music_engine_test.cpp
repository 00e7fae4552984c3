// The music engine, listened to: decoded length, format and level; what the seed and the prompt
// change; failures. Renders are short (a few seconds) to keep the suite quick in sanitizer builds.
#include "mediagen/engines/music.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "unit/engines/audio_measures.hpp"
#include "unit/engines/mp3_decode.hpp"

namespace mediagen::engines {
namespace {

using testing::chroma;
using testing::chroma_distance;
using testing::decode_mp3;
using testing::DecodedMp3;
using testing::to_mono;

// Percussive onsets per second, for dense music where every part sustains: the signal's second
// difference (which lifts the highs, where hits and attacks are, over the pads) in 10 ms hops;
// an onset is a hop at least 3 dB above the quietest of the five before it and no quieter than
// the next, at most one per 80 ms. (audio_measures' onset_rate is made for notes separated by
// quiet; under sustained pads it counts the codec's frame-to-frame noise.)
double percussive_onset_rate(const testing::Mono& m) {
  const auto hop = static_cast<std::size_t>(m.rate / 100);
  std::vector<double> level;
  for (std::size_t at = 2; at + hop <= m.samples.size(); at += hop) {
    double sum = 0;
    for (std::size_t i = at; i < at + hop; ++i) {
      const double d = static_cast<double>(m.samples[i]) - 2.0 * m.samples[i - 1] + m.samples[i - 2];
      sum += d * d;
    }
    level.push_back(10 * std::log10(sum / static_cast<double>(hop) + 1e-12));
  }
  int onsets = 0;
  std::size_t last = 0;
  for (std::size_t i = 5; i + 1 < level.size(); ++i) {
    const double low = *std::min_element(level.begin() + static_cast<long>(i - 5), level.begin() + static_cast<long>(i));
    if (level[i] - low >= 3.0 && level[i] >= level[i + 1] && (onsets == 0 || i - last >= 8)) {
      ++onsets;
      last = i;
    }
  }
  return onsets / (static_cast<double>(m.samples.size()) / static_cast<double>(m.rate));
}

// One engine for the whole suite, as a server has one per process: the soundfont loads once.
MusicEngine& engine() {
  static MusicEngine shared{std::string(kDefaultSoundfont)};
  return shared;
}

Audio make(const std::string& prompt, std::int64_t ms, std::uint64_t seed) {
  auto audio = engine().generate({prompt, ms, seed});
  EXPECT_TRUE(audio) << (audio ? "" : audio.error().detail);
  return audio ? *audio : Audio{};
}

void expect_playable(const std::string& prompt, std::int64_t ms, std::uint64_t seed) {
  SCOPED_TRACE(prompt + ", " + std::to_string(ms) + " ms");
  const auto audio = make(prompt, ms, seed);
  const DecodedMp3 decoded = decode_mp3(audio.mp3);
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_EQ(decoded.rate, 44100);
  EXPECT_EQ(decoded.channels, 2);
  const auto tolerance = std::max<std::int64_t>(15, ms / 50);  // prompt_engine.hpp: 2 % or 15 ms
  EXPECT_NEAR(static_cast<double>(decoded.duration_ms()), static_cast<double>(ms), static_cast<double>(tolerance));
  EXPECT_NEAR(static_cast<double>(audio.duration_ms), static_cast<double>(ms), static_cast<double>(tolerance));
  EXPECT_EQ(audio.sample_rate, 44100);
  EXPECT_TRUE(audio.words.empty());
  EXPECT_LT(testing::peak_dbfs(decoded), -0.5);
  const auto mono = to_mono(decoded);
  EXPECT_GT(testing::rms_dbfs(mono.samples), -40.0);
  EXPECT_LT(testing::rms_dbfs(mono.samples), -8.0);
  // The fade ends at the end: the last 20 ms of what was rendered are near silence.
  const std::size_t tail = 44100 / 50;
  std::vector<float> last(mono.samples.end() - static_cast<long>(tail + 1400), mono.samples.end() - 1400);
  EXPECT_LT(testing::rms_dbfs(last), -40.0);
}

TEST(MusicEngine, DecodesToTheRequestedLengthInStereoAtAListeningLevel) {
  expect_playable("lofi hip hop", 5'000, 1);
  expect_playable("epic orchestral", 12'000, 2);
  expect_playable("весёлый рок", 7'300, 3);
}

TEST(MusicEngine, TheDefaultLengthIsThirtySeconds) {
  auto audio = engine().generate({"calm piano", std::nullopt, 4});
  ASSERT_TRUE(audio) << audio.error().detail;
  EXPECT_NEAR(static_cast<double>(decode_mp3(audio->mp3).duration_ms()), 30'000.0, 15.0);
}

TEST(MusicEngine, SeedsVaryTheMusicAndTheSameSeedGivesTheSameBytes) {
  std::vector<Audio> variants;
  for (std::uint64_t seed : {11u, 12u, 13u}) variants.push_back(make("happy folk guitar", 6'000, seed));
  std::vector<testing::Mono> decoded;
  for (const auto& v : variants) decoded.push_back(to_mono(decode_mp3(v.mp3)));
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    for (std::size_t j = i + 1; j < decoded.size(); ++j) {
      SCOPED_TRACE(std::to_string(i) + " vs " + std::to_string(j));
      EXPECT_NE(decoded[i].samples, decoded[j].samples);
      const double chroma_apart = chroma_distance(chroma(decoded[i]), chroma(decoded[j]));
      const double onsets_apart = std::abs(percussive_onset_rate(decoded[i]) - percussive_onset_rate(decoded[j]));
      EXPECT_TRUE(chroma_apart > 0.03 || onsets_apart > 0.2) << chroma_apart << " " << onsets_apart;
    }
  }
  EXPECT_EQ(make("happy folk guitar", 6'000, 12).mp3, variants[1].mp3);
}

TEST(MusicEngine, TwoThreadsAtOnceGetTheSameBytesAsOne) {
  const auto alone = make("electronic dance", 4'000, 77);
  std::string first, second;
  std::thread a([&] { first = make("electronic dance", 4'000, 77).mp3; });
  std::thread b([&] { second = make("electronic dance", 4'000, 77).mp3; });
  a.join();
  b.join();
  EXPECT_EQ(first, alone.mp3);
  EXPECT_EQ(second, alone.mp3);
}

TEST(MusicEngine, SlowCalmPianoIsSparserThanFastEnergeticDrumAndBass) {
  const auto calm = to_mono(decode_mp3(make("slow calm piano", 8'000, 5).mp3));
  const auto busy = to_mono(decode_mp3(make("fast energetic drum and bass", 8'000, 5).mp3));
  const double calm_rate = percussive_onset_rate(calm), busy_rate = percussive_onset_rate(busy);
  EXPECT_LT(calm_rate * 2, busy_rate) << calm_rate << " vs " << busy_rate;
}

TEST(MusicEngine, UnknownWordsPlayTheDefaultStyle) {
  const auto plain = make("", 3'000, 9);
  EXPECT_EQ(make("xyzzy", 3'000, 9).mp3, plain.mp3);
  EXPECT_EQ(make("日本語", 3'000, 9).mp3, plain.mp3);
  EXPECT_EQ(make("\xff\xfe ###", 3'000, 9).mp3, plain.mp3);
  EXPECT_NE(make("rock", 3'000, 9).mp3, plain.mp3);
}

TEST(MusicEngine, AMissingSoundfontIsATechnicalFailureEveryTime) {
  MusicEngine missing("/nonexistent/soundfont.sf2");
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto audio = missing.generate({"rock", 5'000, 1});
    ASSERT_FALSE(audio);
    EXPECT_EQ(audio.error().kind, FailureKind::technical);
    EXPECT_NE(audio.error().detail.find("soundfont"), std::string::npos);
  }
  MusicEngine not_a_soundfont("/proc/self/status");
  EXPECT_FALSE(not_a_soundfont.preload());
}

TEST(MusicEngine, ALaterCallRetriesTheLoad) {
  const auto dir = std::filesystem::temp_directory_path() / ("music_engine_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto link = dir / "soundfont.sf2";
  MusicEngine engine_later(link.string());
  EXPECT_FALSE(engine_later.generate({"jazz", 1'000, 1}));
  std::filesystem::create_symlink(kDefaultSoundfont, link);
  auto audio = engine_later.generate({"jazz", 1'000, 1});
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(audio) << audio.error().detail;
  EXPECT_TRUE(decode_mp3(audio->mp3).ok);
}

TEST(MusicEngine, ALengthOutsideTheRangeIsATechnicalFailure) {
  for (std::int64_t ms : {-1L, 0L, 499L, 600'001L}) {
    auto audio = engine().generate({"rock", ms, 1});
    ASSERT_FALSE(audio) << ms;
    EXPECT_EQ(audio.error().kind, FailureKind::technical);
  }
}

}  // namespace
}  // namespace mediagen::engines
