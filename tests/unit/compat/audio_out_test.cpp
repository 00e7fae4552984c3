// The chunks' MP3 turned into each response format piece by piece, and where a stream stands.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compat/speech_request.hpp"
#include "compat/speech_stream.hpp"
#include "mediagen/engines/audio.hpp"

namespace mediagen::compat {
namespace {

// One second of a 440 Hz tone at 22.05 kHz, as a chunk's MP3.
std::string tone_mp3(int rate = 22050) {
  std::vector<std::int16_t> pcm(static_cast<std::size_t>(rate));
  for (std::size_t i = 0; i < pcm.size(); ++i) pcm[i] = static_cast<std::int16_t>(8000 * std::sin(2 * M_PI * 440 * i / rate));
  auto mp3 = engines::encode_mp3(pcm, rate);
  EXPECT_TRUE(mp3.has_value());
  return mp3 ? mp3->bytes : std::string();
}

// Two chunks fed in uneven pieces; the whole output.
std::string convert(AudioFormat format, const std::string& chunk) {
  auto out = engines::make_audio_out(audio_out_spec(format));
  EXPECT_NE(out, nullptr);
  if (!out) return {};
  std::string all;
  for (int c = 0; c < 2; ++c) {
    for (std::size_t at = 0; at < chunk.size(); at += 777) {
      auto piece = out->feed(std::string_view(chunk).substr(at, 777));
      EXPECT_TRUE(piece.has_value());
      if (piece) all += *piece;
    }
  }
  auto tail = out->finish();
  EXPECT_TRUE(tail.has_value());
  if (tail) all += *tail;
  return all;
}

TEST(AudioOut, Mp3PassesThrough) {
  const auto chunk = tone_mp3();
  EXPECT_EQ(convert(AudioFormat::mp3, chunk), chunk + chunk);
}

TEST(AudioOut, PcmIs24kHzMono16Bit) {
  const auto pcm = convert(AudioFormat::pcm, tone_mp3());
  // Two seconds of tone plus the MP3 codec's delay and padding per chunk.
  const double seconds = static_cast<double>(pcm.size()) / 2 / kPcmRate;
  EXPECT_GT(seconds, 2.0);
  EXPECT_LT(seconds, 2.3);
  EXPECT_EQ(pcm.size() % 2, 0u);
}

TEST(AudioOut, WavStartsWithAStreamingHeader) {
  const auto wav = convert(AudioFormat::wav, tone_mp3());
  ASSERT_GT(wav.size(), 44u);
  EXPECT_EQ(wav.substr(0, 4), "RIFF");
  EXPECT_EQ(wav.substr(8, 8), "WAVEfmt ");
  EXPECT_EQ(wav.substr(36, 4), "data");
  EXPECT_EQ(wav.substr(4, 4), std::string(4, '\xff'));
  EXPECT_EQ(engines::streaming_wav_header(kPcmRate, 1).size(), 44u);
}

TEST(AudioOut, EncodedFormatsCarryTheirContainers) {
  const auto chunk = tone_mp3();
  EXPECT_EQ(convert(AudioFormat::opus, chunk).substr(0, 4), "OggS");
  EXPECT_EQ(convert(AudioFormat::flac, chunk).substr(0, 4), "fLaC");
  const auto aac = convert(AudioFormat::aac, chunk);
  ASSERT_GT(aac.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(aac[0]), 0xFF);  // ADTS sync
}

TEST(AudioOut, BytesThatAreNotMp3NeverCrash) {
  for (auto format : {AudioFormat::pcm, AudioFormat::opus, AudioFormat::flac}) {
    auto out = engines::make_audio_out(audio_out_spec(format));
    ASSERT_NE(out, nullptr);
    std::string junk(5000, '\0');
    for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>((i * 7919) & 0xff);
    (void)out->feed(junk);
    (void)out->finish();
  }
}

orders::Item item(int index, int attempt, orders::ItemStatus status, const char* path = nullptr) {
  orders::Item i;
  i.chunk_index = index;
  i.attempt_number = attempt;
  i.status = status;
  if (path) i.result_path = path;
  return i;
}

TEST(ChunkState, FollowsTheLatestAttemptOfEachPosition) {
  using orders::ItemStatus;
  orders::Order order;
  order.status = orders::OrderStatus::in_progress;
  order.items = {item(0, 1, ItemStatus::failed), item(0, 2, ItemStatus::completed, "a.mp3"),
                 item(1, 1, ItemStatus::processing), item(2, 1, ItemStatus::policy_flagged)};
  EXPECT_EQ(chunk_state(order, 0).kind, ChunkState::Kind::ready);
  EXPECT_EQ(chunk_state(order, 0).key, "a.mp3");
  EXPECT_EQ(chunk_state(order, 1).kind, ChunkState::Kind::waiting);
  EXPECT_EQ(chunk_state(order, 2).kind, ChunkState::Kind::policy_flagged);
  EXPECT_EQ(chunk_state(order, 3).kind, ChunkState::Kind::done);
  order.items[0] = item(0, 3, ItemStatus::failed);
  EXPECT_EQ(chunk_state(order, 0).kind, ChunkState::Kind::failed);
  order.status = orders::OrderStatus::cancelled;
  EXPECT_EQ(chunk_state(order, 1).kind, ChunkState::Kind::ended);
}

// A closed order settled its money by its own rules: its audio is not sent on, not even a
// completed chunk, so a replayed answer of an order that ended undelivered gets nothing for free.
TEST(ChunkState, AClosedOrderSendsNothingMore) {
  using orders::ItemStatus;
  orders::Order order;
  order.items = {item(0, 1, ItemStatus::completed, "a.mp3"), item(1, 1, ItemStatus::completed, "b.mp3")};
  for (auto status : {orders::OrderStatus::failed, orders::OrderStatus::cancelled, orders::OrderStatus::compensated}) {
    order.status = status;
    EXPECT_EQ(chunk_state(order, 0).kind, ChunkState::Kind::ended) << orders::to_string(status);
  }
  order.status = orders::OrderStatus::completed;
  EXPECT_EQ(chunk_state(order, 0).kind, ChunkState::Kind::ready);
}

}  // namespace
}  // namespace mediagen::compat
