// Stitching MP3 streams: only whole, matching MPEG audio frames are joined.
#include "mediagen/engines/audio.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "unit/engines/mp3_decode.hpp"

namespace mediagen::engines {
namespace {

using testing::decode_mp3;

Mp3Stream tone_mp3(int sample_rate, double seconds, double hz = 440.0) {
  std::vector<std::int16_t> pcm(static_cast<std::size_t>(sample_rate * seconds));
  for (std::size_t i = 0; i < pcm.size(); ++i) {
    pcm[i] = static_cast<std::int16_t>(
        6000 * std::sin(2 * std::numbers::pi * hz * static_cast<double>(i) / sample_rate));
  }
  auto mp3 = encode_mp3(pcm, sample_rate);
  EXPECT_TRUE(mp3) << mp3.error().detail;
  return mp3 ? *mp3 : Mp3Stream{};
}

void expect_refused(std::span<const std::string_view> streams, std::string_view why) {
  auto joined = concat_mp3(streams);
  ASSERT_FALSE(joined) << why;
  EXPECT_EQ(joined.error().kind, FailureKind::technical) << why;
  EXPECT_FALSE(joined.error().detail.empty());
}

TEST(Mp3Concat, CountsTheFramesTheEncoderWrote) {
  for (const int rate : {22050, 44100, 16000, 8000}) {
    const auto mp3 = tone_mp3(rate, 1.3);
    auto frames = scan_mp3(mp3.bytes);
    ASSERT_TRUE(frames) << rate << ": " << frames.error().detail;
    EXPECT_EQ(frames->frames, mp3.frames) << rate;
    EXPECT_EQ(frames->sample_rate, rate);
    EXPECT_EQ(frames->samples_per_frame, mp3.samples_per_frame) << rate;
    EXPECT_EQ(frames->channels, 1);
    EXPECT_EQ(frames->decoded_samples, mp3.decoded_samples);
    EXPECT_EQ(*mp3_duration_ms(mp3.bytes), mp3.duration_ms) << rate;
  }
}

TEST(Mp3Concat, JoinsStreamsIntoOnePlayableTrack) {
  const auto a = tone_mp3(22050, 1.0);
  const auto b = tone_mp3(22050, 2.5, 300.0);
  const auto c = tone_mp3(22050, 0.2, 800.0);
  const std::string_view parts[] = {a.bytes, b.bytes, c.bytes};
  auto joined = concat_mp3(parts);
  ASSERT_TRUE(joined) << joined.error().detail;
  EXPECT_EQ(*joined, a.bytes + b.bytes + c.bytes);
  auto frames = scan_mp3(*joined);
  ASSERT_TRUE(frames);
  EXPECT_EQ(frames->frames, a.frames + b.frames + c.frames);
  const auto decoded = decode_mp3(*joined);
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_EQ(static_cast<std::int64_t>(decoded.samples.size()), frames->decoded_samples);
  EXPECT_NEAR(static_cast<double>(*mp3_duration_ms(*joined)),
              static_cast<double>(a.duration_ms + b.duration_ms + c.duration_ms), 2.0);

  // Different bitrates at one sample rate join as well.
  std::vector<std::int16_t> pcm(22050, 0);
  auto high = encode_mp3(pcm, 22050, {.bitrate_kbps = 128});
  ASSERT_TRUE(high);
  const std::string_view mixed[] = {a.bytes, high->bytes};
  EXPECT_TRUE(concat_mp3(mixed));
}

TEST(Mp3Concat, RefusesGarbage) {
  const auto a = tone_mp3(22050, 0.5);
  const std::string text = "this is not an mp3 stream at all, only words";
  const std::string_view with_text[] = {a.bytes, text};
  expect_refused(with_text, "text");

  std::string noise(4000, '\0');
  for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 7919 + 13) % 251);
  const std::string_view with_noise[] = {noise};
  expect_refused(with_noise, "noise");

  // An ID3 tag in front of the frames: our streams never carry one, so it is not ours.
  const std::string tagged = std::string("ID3\x04\x00\x00\x00\x00\x00\x00", 10) + a.bytes;
  const std::string_view with_tag[] = {tagged};
  expect_refused(with_tag, "id3");

  // Stray bytes between frames.
  const std::string glued = a.bytes + "xx" + a.bytes;
  const std::string_view with_gap[] = {glued};
  expect_refused(with_gap, "gap");

  const std::string_view empty[] = {a.bytes, std::string_view{}};
  expect_refused(empty, "empty stream");
  expect_refused({}, "no streams");
  EXPECT_FALSE(mp3_duration_ms(text));
}

TEST(Mp3Concat, RefusesATruncatedLastFrame) {
  const auto a = tone_mp3(22050, 0.5);
  const auto b = tone_mp3(22050, 0.5);
  const std::string cut = b.bytes.substr(0, b.bytes.size() - 1);
  const std::string_view parts[] = {a.bytes, cut};
  expect_refused(parts, "truncated");
  // Cut right after a frame header, too.
  const std::string header_only = a.bytes + b.bytes.substr(0, 4);
  EXPECT_FALSE(scan_mp3(header_only));
  EXPECT_FALSE(scan_mp3(a.bytes + b.bytes.substr(0, 2)));
}

TEST(Mp3Concat, RefusesMixedSampleRates) {
  const auto a = tone_mp3(22050, 0.5);
  const auto b = tone_mp3(24000, 0.5);  // same MPEG version and frame size, another rate
  const auto c = tone_mp3(44100, 0.5);  // MPEG-1
  const std::string_view ab[] = {a.bytes, b.bytes};
  expect_refused(ab, "22050 + 24000");
  const std::string_view ac[] = {a.bytes, c.bytes};
  expect_refused(ac, "22050 + 44100");
  // Inside one stream as well.
  EXPECT_FALSE(scan_mp3(a.bytes + b.bytes));
}

TEST(Mp3Concat, RefusesMixedChannelModes) {
  auto silence = encode_mp3({}, 22050);
  ASSERT_TRUE(silence);
  // The same frames relabelled stereo (mode bits 00); the mode does not change a frame's length,
  // which at 64 kbit/s and 22,050 Hz is 208 bytes plus the padding bit.
  std::string stereo = silence->bytes;
  for (std::size_t at = 0; at + 4 <= stereo.size(); at += 208 + ((static_cast<unsigned char>(stereo[at + 2]) >> 1) & 1)) {
    stereo[at + 3] = static_cast<char>(static_cast<unsigned char>(stereo[at + 3]) & 0x3F);
  }
  ASSERT_TRUE(scan_mp3(stereo)) << scan_mp3(stereo).error().detail;
  // Relabelling only the first frame makes the stream itself inconsistent.
  std::string half = silence->bytes;
  half[3] = static_cast<char>(static_cast<unsigned char>(half[3]) & 0x3F);
  EXPECT_FALSE(scan_mp3(half));
  EXPECT_EQ(scan_mp3(stereo)->channels, 2);
  const std::string_view parts[] = {silence->bytes, stereo};
  expect_refused(parts, "mono + stereo");
}

TEST(Mp3Concat, RefusesATagFrame) {
  // A Xing/Info frame would tell players the length of the first chunk only.
  auto silence = encode_mp3({}, 22050);
  ASSERT_TRUE(silence);
  std::string tagged = silence->bytes;
  tagged.replace(4 + 9, 4, "Info");  // after the header and MPEG-2 mono side information
  const auto a = tone_mp3(22050, 0.3);
  const std::string_view parts[] = {a.bytes, tagged};
  expect_refused(parts, "Info frame");
}

// Feeds `stream` to the joiner in pieces of `piece` bytes, keeping the unaccepted tail as the
// stitcher does; what was accepted is appended to `out`.
boost::system::result<Mp3Frames, EngineFailure> feed(Mp3Joiner& joiner, std::string_view stream, std::size_t piece,
                                                     std::string& out) {
  std::string buffer;
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    buffer.append(stream.substr(at, piece));
    auto taken = joiner.take(buffer);
    if (!taken) return taken.error();
    out.append(buffer, 0, *taken);
    buffer.erase(0, *taken);
    EXPECT_LT(buffer.size(), Mp3Joiner::kMaxFrameBytes + piece);
  }
  return joiner.end_stream(buffer);
}

TEST(Mp3Joiner, PiecesOfAnySizeJoinToTheSameTrackAndTotalsAsAWholeJoin) {
  const auto a = tone_mp3(22050, 1.1);
  const auto b = tone_mp3(22050, 0.4, 300.0);
  const std::string_view parts[] = {a.bytes, b.bytes};
  const auto whole = concat_mp3(parts).value();
  for (const std::size_t piece : {1u, 3u, 4u, 5u, 207u, 1441u, 4096u, 1u << 20}) {
    Mp3Joiner joiner;
    std::string out;
    const auto first = feed(joiner, a.bytes, piece, out);
    const auto second = feed(joiner, b.bytes, piece, out);
    ASSERT_TRUE(first && second) << piece;
    EXPECT_EQ(out, whole) << piece;
    EXPECT_EQ(first->decoded_samples, a.decoded_samples);
    EXPECT_EQ(second->decoded_samples, b.decoded_samples);
    EXPECT_EQ(joiner.joined().decoded_samples, a.decoded_samples + b.decoded_samples);
    EXPECT_EQ(joiner.joined().duration_ms, scan_mp3(whole)->duration_ms);
    EXPECT_EQ(joiner.streams(), 2);
  }
}

TEST(Mp3Joiner, RefusesInPiecesWhatAWholeJoinRefuses) {
  const auto a = tone_mp3(22050, 0.5);
  const auto other_rate = tone_mp3(16000, 0.5);
  const std::string cut = a.bytes.substr(0, a.bytes.size() - 7);
  const std::string id3 = std::string("ID3\x03\0\0\0\0\0\0", 10) + a.bytes;
  for (const std::size_t piece : {1u, 100u, 1u << 20}) {
    std::string out;
    Mp3Joiner cut_short;
    EXPECT_FALSE(feed(cut_short, cut, piece, out)) << piece;
    Mp3Joiner tagged;
    EXPECT_FALSE(feed(tagged, id3, piece, out)) << piece;
    Mp3Joiner mixed;
    ASSERT_TRUE(feed(mixed, a.bytes, piece, out));
    EXPECT_FALSE(feed(mixed, other_rate.bytes, piece, out)) << piece;
    Mp3Joiner empty;
    EXPECT_FALSE(feed(empty, "", piece, out));
  }
}

}  // namespace
}  // namespace mediagen::engines
