// The frames between the server and its speech helpers: what one end writes, the other reads
// back whole, however the bytes arrive; a bad header breaks the stream for good.
#include "mediagen/engines/speech/wire.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mediagen::engines::detail::wire {
namespace {

TEST(EspeakWire, AJobReadsBackAsWritten) {
  const Job job{{175, 40, 60, 100}, "gmw/en-US+m3", "Hello, world. Привет."};
  FrameReader reader;
  reader.feed(encode_job(job));
  const auto frame = reader.next();
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->type, FrameType::job);
  const auto back = decode_job(frame->payload);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->voice, job.voice);
  EXPECT_EQ(back->text, job.text);
  EXPECT_EQ(back->parameters.rate_wpm, 175);
  EXPECT_EQ(back->parameters.pitch, 40);
  EXPECT_EQ(back->parameters.pitch_range, 60);
  EXPECT_EQ(back->parameters.volume, 100);
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(EspeakWire, AJobWithANulOrAVoiceLongerThanItselfIsRefused) {
  const std::string nul_text = encode_job({{175, 50, 50, 100}, "gmw/en", std::string("a\0b", 3)});
  EXPECT_FALSE(decode_job(std::string_view(nul_text).substr(kHeaderSize)).has_value());
  std::string payload = encode_job({{175, 50, 50, 100}, "gmw/en", "text"}).substr(kHeaderSize);
  payload[16] = '\x7f';  // the voice's length now runs past the payload
  EXPECT_FALSE(decode_job(payload).has_value());
  EXPECT_FALSE(decode_job("short").has_value());
}

TEST(EspeakWire, AudioAndWordsArriveWholeWhenTheBytesComeOneAtATime) {
  std::vector<std::int16_t> samples{0, 1, -1, 32767, -32768, 1234};
  std::vector<WordEvent> words{{1, 5, 0}, {7, 5, 412}, {13, 3, 5'000'000'000}};
  std::string stream = encode_ready(22050);
  encode_pcm(samples, stream);
  encode_words(words, stream);
  stream += frame(FrameType::done, {});

  FrameReader reader;
  std::vector<Frame> frames;
  for (char c : stream) {
    reader.feed(std::string_view(&c, 1));
    while (auto f = reader.next()) frames.push_back(std::move(*f));
  }
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(decode_ready(frames[0].payload), 22050);
  std::vector<std::int16_t> pcm;
  ASSERT_TRUE(decode_pcm(frames[1].payload, pcm));
  EXPECT_EQ(pcm, samples);
  std::vector<WordEvent> back;
  ASSERT_TRUE(decode_words(frames[2].payload, back));
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[1].text_position, 7);
  EXPECT_EQ(back[2].audio_ms, 5'000'000'000);
  EXPECT_EQ(frames[3].type, FrameType::done);
}

TEST(EspeakWire, LongAudioIsCutIntoFramesOfTheLimit) {
  const std::vector<std::int16_t> samples(kMaxPayload, 7);  // two frames' worth
  std::string stream;
  encode_pcm(samples, stream);
  FrameReader reader;
  reader.feed(stream);
  std::vector<std::int16_t> pcm;
  int frames = 0;
  while (auto f = reader.next()) {
    EXPECT_LE(f->payload.size(), kMaxPayload);
    ASSERT_TRUE(decode_pcm(f->payload, pcm));
    ++frames;
  }
  EXPECT_EQ(frames, 2);
  EXPECT_EQ(pcm, samples);
}

TEST(EspeakWire, AnUnknownTypeOrAnOversizedLengthBreaksTheStream) {
  FrameReader unknown;
  unknown.feed(std::string("X\0\0\0\0", 5) + frame(FrameType::done, {}));
  EXPECT_FALSE(unknown.next().has_value());
  EXPECT_TRUE(unknown.broken());
  unknown.feed(frame(FrameType::done, {}));
  EXPECT_FALSE(unknown.next().has_value());  // nothing after a bad header is read
  EXPECT_EQ(unknown.buffered(), 0u);         // nor kept

  FrameReader oversized;
  oversized.feed(std::string("P\x01\x00\x10\x00", 5));  // 1 MiB + 1
  EXPECT_FALSE(oversized.next().has_value());
  EXPECT_TRUE(oversized.broken());
}

TEST(EspeakWire, MalformedPayloadsAreRefused) {
  std::vector<std::int16_t> pcm;
  EXPECT_FALSE(decode_pcm("abc", pcm));
  std::vector<WordEvent> words;
  EXPECT_FALSE(decode_words(std::string(15, 'a'), words));
  EXPECT_FALSE(decode_ready(std::string("\x01\x00\x00\x00", 4)).has_value());  // 1 Hz
  EXPECT_EQ(decode_failed("espeak-ng could not load voice 'x'"), "espeak-ng could not load voice 'x'");
  EXPECT_EQ(decode_failed("bad\nline"), "the speech helper failed");
  EXPECT_EQ(decode_failed(std::string(kMaxFailureText + 1, 'a')), "the speech helper failed");
}

}  // namespace
}  // namespace mediagen::engines::detail::wire
