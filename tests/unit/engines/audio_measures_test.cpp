// The measures the engine tests rely on tell apart what they claim to: a tone from noise, a
// busy rhythm from a slow one, one key from another.
#include "unit/engines/audio_measures.hpp"

#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "mediagen/engines/audio.hpp"

namespace mediagen::engines {
namespace {

using namespace testing;

constexpr int kMeasureRate = 44100;

Mono encoded(const std::vector<std::int16_t>& pcm) {
  auto mp3 = encode_mp3(pcm, kMeasureRate, {.bitrate_kbps = 128});
  EXPECT_TRUE(mp3);
  return to_mono(decode_mp3(mp3->bytes));
}

// Notes of `hz` lasting `note_s` each, separated by as much silence.
std::vector<std::int16_t> beeps(double hz, double note_s, double seconds) {
  std::vector<std::int16_t> pcm(static_cast<std::size_t>(kMeasureRate * seconds));
  for (std::size_t i = 0; i < pcm.size(); ++i) {
    const double t = static_cast<double>(i) / kMeasureRate;
    const bool on = std::fmod(t, 2 * note_s) < note_s;
    pcm[i] = on ? static_cast<std::int16_t>(9000 * std::sin(2 * std::numbers::pi * hz * t)) : 0;
  }
  return pcm;
}

std::vector<std::int16_t> noise(double seconds) {
  std::mt19937 rng(7);
  std::normal_distribution<double> n(0, 4000);
  std::vector<std::int16_t> pcm(static_cast<std::size_t>(kMeasureRate * seconds));
  for (auto& s : pcm) s = static_cast<std::int16_t>(std::clamp(n(rng), -32000.0, 32000.0));
  return pcm;
}

TEST(AudioMeasures, NoiseIsFlatAndAToneIsNot) {
  const Mono tone = encoded(beeps(660, 10, 2));
  const Mono hiss = encoded(noise(2));
  EXPECT_GT(spectral_flatness(hiss), 0.5);
  EXPECT_LT(spectral_flatness(tone), 0.1);
  EXPECT_GT(tonal_peak_db(tone), 40);
  EXPECT_LT(tonal_peak_db(hiss), 15);
}

TEST(AudioMeasures, OnsetRateFollowsTheRhythm) {
  const double fast = onset_rate(encoded(beeps(440, 0.125, 8)));  // 4 notes a second
  const double slow = onset_rate(encoded(beeps(440, 0.5, 8)));    // 1 note a second
  EXPECT_NEAR(fast, 4.0, 1.0);
  EXPECT_NEAR(slow, 1.0, 0.5);
}

TEST(AudioMeasures, ChromaTellsKeysApart) {
  const auto a = chroma(encoded(beeps(440, 10, 2)));     // A
  const auto e = chroma(encoded(beeps(329.63, 10, 2)));  // E
  EXPECT_GT(a[9], 0.5);
  EXPECT_GT(e[4], 0.5);
  EXPECT_GT(chroma_distance(a, e), 0.5);
  EXPECT_LT(chroma_distance(a, chroma(encoded(beeps(440, 10, 2)))), 0.01);
}

TEST(AudioMeasures, PeakOfFullScaleIsZeroAndSilenceIsMinusInfinity) {
  DecodedMp3 d;
  d.samples = {0, -32768, 100};
  EXPECT_DOUBLE_EQ(peak_dbfs(d), 0.0);
  d.samples = {0, 0};
  EXPECT_TRUE(std::isinf(peak_dbfs(d)));
}

}  // namespace
}  // namespace mediagen::engines
