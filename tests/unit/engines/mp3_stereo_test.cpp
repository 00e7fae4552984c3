// Stereo MP3 and the block-by-block encoder: the same framing as mono, both channels kept.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "mediagen/engines/audio.hpp"
#include "unit/engines/mp3_decode.hpp"

namespace mediagen::engines {
namespace {

// Left 440 Hz, right silent: the channels must not be mixed.
std::vector<std::int16_t> left_tone(double seconds) {
  std::vector<std::int16_t> pcm(static_cast<std::size_t>(44100 * seconds) * 2, 0);
  for (std::size_t i = 0; i < pcm.size() / 2; ++i) {
    pcm[2 * i] = static_cast<std::int16_t>(8000 * std::sin(2 * std::numbers::pi * 440.0 * static_cast<double>(i) / 44100));
  }
  return pcm;
}

TEST(Mp3Stereo, EncodesBothChannelsWithTheMonoFraming) {
  const auto pcm = left_tone(2.0);
  auto mp3 = encode_mp3_stereo(pcm, 44100, {.bitrate_kbps = 128, .quality = 5});
  ASSERT_TRUE(mp3) << mp3.error().detail;
  EXPECT_EQ(mp3->samples_per_frame, 1152);
  EXPECT_EQ(mp3->delay_samples, 1105);
  EXPECT_EQ(mp3->decoded_samples, mp3->frames * 1152);
  const auto decoded = testing::decode_mp3(mp3->bytes);
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_EQ(decoded.channels, 2);
  EXPECT_EQ(decoded.rate, 44100);
  EXPECT_EQ(static_cast<std::int64_t>(decoded.samples.size() / 2), mp3->decoded_samples);
  std::vector<std::int16_t> left, right;
  for (std::size_t i = 0; i + 1 < decoded.samples.size(); i += 2) {
    left.push_back(decoded.samples[i]);
    right.push_back(decoded.samples[i + 1]);
  }
  EXPECT_NEAR(testing::rms(left), 8000 / std::sqrt(2.0), 600);
  EXPECT_LT(testing::rms(right), 200);
  // 128 kbit/s: 2 s is about 32 kB.
  EXPECT_NEAR(static_cast<double>(mp3->bytes.size()), 32'000, 2'000);
}

TEST(Mp3Stereo, BlockByBlockGivesTheSameBytesAsWhole) {
  const auto pcm = left_tone(3.0);
  auto whole = encode_mp3_stereo(pcm, 44100);
  ASSERT_TRUE(whole);
  auto encoder = Mp3Encoder::create(2, 44100);
  ASSERT_TRUE(encoder);
  for (std::size_t at = 0; at < pcm.size(); at += 2 * 777) {
    const std::size_t n = std::min<std::size_t>(2 * 777, pcm.size() - at);
    ASSERT_TRUE(encoder->write({pcm.data() + at, n}));
  }
  auto streamed = encoder->finish();
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->bytes, whole->bytes);
  EXPECT_FALSE(encoder->finish());  // spent
  EXPECT_FALSE(encoder->write(pcm));
}

TEST(Mp3Stereo, EmptyInputIsPlayableAndBadSettingsAreRefused) {
  auto empty = encode_mp3_stereo({}, 44100);
  ASSERT_TRUE(empty);
  EXPECT_GE(empty->frames, 1);
  EXPECT_TRUE(testing::decode_mp3(empty->bytes).ok);
  EXPECT_FALSE(Mp3Encoder::create(3, 44100));
  EXPECT_FALSE(Mp3Encoder::create(2, 7000));
  EXPECT_FALSE(encode_mp3_stereo({}, 96000));
}

}  // namespace
}  // namespace mediagen::engines
