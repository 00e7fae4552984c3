// MP3 encoding: what comes out decodes to what went in, at the documented place and length.
#include "mediagen/engines/audio.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "unit/engines/mp3_decode.hpp"

namespace mediagen::engines {
namespace {

using testing::decode_mp3;
using testing::rms;

std::vector<std::int16_t> tone(int sample_rate, double seconds, double hz = 440.0) {
  std::vector<std::int16_t> pcm(static_cast<std::size_t>(sample_rate * seconds));
  for (std::size_t i = 0; i < pcm.size(); ++i) {
    pcm[i] = static_cast<std::int16_t>(8000 * std::sin(2 * std::numbers::pi * hz * static_cast<double>(i) / sample_rate));
  }
  return pcm;
}

TEST(Mp3, EncodesMonoAt22050) {
  const auto pcm = tone(22050, 2.0);
  auto mp3 = encode_mp3(pcm, 22050);
  ASSERT_TRUE(mp3) << mp3.error().detail;
  EXPECT_EQ(mp3->sample_rate, 22050);
  EXPECT_EQ(mp3->samples_per_frame, 576);
  EXPECT_EQ(mp3->delay_samples, 1105);
  EXPECT_EQ(mp3->delay_ms, 50);
  EXPECT_EQ(mp3->decoded_samples, mp3->frames * 576);
  EXPECT_GE(mp3->decoded_samples, static_cast<std::int64_t>(pcm.size()) + mp3->delay_samples);
  // CBR 64 kbit/s: 2 s is about 16 kB.
  EXPECT_NEAR(static_cast<double>(mp3->bytes.size()), 64000.0 / 8 * mp3->duration_ms / 1000, 600.0);
  // No ID3 tag: the stream starts with a frame sync.
  ASSERT_GE(mp3->bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(mp3->bytes[0]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(mp3->bytes[1]) & 0xE0, 0xE0);

  const auto decoded = decode_mp3(mp3->bytes);
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_EQ(decoded.rate, 22050);
  EXPECT_EQ(decoded.channels, 1);
  EXPECT_EQ(static_cast<std::int64_t>(decoded.samples.size()), mp3->decoded_samples);
  // Same energy: the tone's RMS spread over the longer decoded stream.
  const double expected_rms =
      rms(pcm) * std::sqrt(static_cast<double>(pcm.size()) / static_cast<double>(decoded.samples.size()));
  EXPECT_NEAR(rms(decoded.samples), expected_rms, 0.1 * expected_rms);
}

TEST(Mp3, InputStartsAfterTheDocumentedDelay) {
  // Silence, then a click of tone: the click must come out delay_samples later.
  std::vector<std::int16_t> pcm(22050, 0);
  const auto burst = tone(22050, 0.2, 1000.0);
  const std::size_t onset = 11025;
  std::copy(burst.begin(), burst.end(), pcm.begin() + static_cast<std::ptrdiff_t>(onset));
  auto mp3 = encode_mp3(pcm, 22050);
  ASSERT_TRUE(mp3);
  const auto decoded = decode_mp3(mp3->bytes);
  ASSERT_TRUE(decoded.ok);
  std::size_t first_loud = 0;
  while (first_loud < decoded.samples.size() && std::abs(decoded.samples[first_loud]) < 2000) ++first_loud;
  const auto expected = onset + static_cast<std::size_t>(mp3->delay_samples);
  EXPECT_NEAR(static_cast<double>(first_loud), static_cast<double>(expected), 64.0);
}

TEST(Mp3, ConcatenatedStreamsDecodeAsOne) {
  auto a = encode_mp3(tone(22050, 1.0), 22050);
  auto b = encode_mp3(tone(22050, 1.5, 300.0), 22050);
  ASSERT_TRUE(a && b);
  const auto joined = decode_mp3(a->bytes + b->bytes);
  ASSERT_TRUE(joined.ok);
  EXPECT_EQ(static_cast<std::int64_t>(joined.samples.size()), a->decoded_samples + b->decoded_samples);
}

TEST(Mp3, EmptyInputGivesOneSilentFrame) {
  auto mp3 = encode_mp3({}, 22050);
  ASSERT_TRUE(mp3);
  EXPECT_FALSE(mp3->bytes.empty());
  const auto decoded = decode_mp3(mp3->bytes);
  ASSERT_TRUE(decoded.ok);
  EXPECT_LT(rms(decoded.samples), 10.0);
}

TEST(Mp3, RefusesImpossibleSettings) {
  const auto pcm = tone(22050, 0.1);
  EXPECT_FALSE(encode_mp3(pcm, 1000));
  auto too_high = encode_mp3(pcm, 22050, {.bitrate_kbps = 320});  // MPEG-2 tops out at 160
  if (too_high) {
    // LAME may clamp instead of refusing; either way the stream decodes.
    EXPECT_TRUE(decode_mp3(too_high->bytes).ok);
  }
}

TEST(Mp3, EncodesInParallel) {
  const auto pcm = tone(22050, 3.0);
  auto reference = encode_mp3(pcm, 22050);
  ASSERT_TRUE(reference);
  std::vector<std::string> outputs(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < outputs.size(); ++t) {
    threads.emplace_back([&, t] {
      auto mp3 = encode_mp3(pcm, 22050);
      if (mp3) outputs[t] = std::move(mp3->bytes);
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& out : outputs) EXPECT_TRUE(out == reference->bytes);
}

}  // namespace
}  // namespace mediagen::engines
