// Audio intake: every accepted format decodes to the right length and pitch; hostile and
// non-audio input is refused (or read only as far as it holds audio) and ends quickly. Sample
// files are encoded by the ffmpeg program into a temporary directory.
#include "mediagen/engines/codec.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "audio_measures.hpp"

namespace mediagen::engines {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The strongest frequency over the loud frames, to the nearest FFT bin (7.8 Hz at 16 kHz).
double dominant_hz(const AnalysisAudio& audio) {
  const auto frames = testing::power_frames(testing::Mono{audio.samples, audio.sample_rate});
  if (frames.empty()) return 0;
  std::vector<double> sum(frames.front().size(), 0.0);
  for (const auto& f : frames) {
    for (std::size_t k = 0; k < f.size(); ++k) sum[k] += f[k];
  }
  const auto peak = std::distance(sum.begin(), std::max_element(sum.begin() + 1, sum.end()));
  return static_cast<double>(peak) * audio.sample_rate / static_cast<double>(testing::kFrame);
}

// A RIFF/WAVE header whose sizes say `data_bytes`, whatever follows. Format tag 1 is integer
// PCM, 3 IEEE float.
std::string wav_header(std::uint32_t rate, std::uint32_t data_bytes, std::uint16_t channels = 1,
                       std::uint16_t tag = 1, std::uint16_t bits = 16) {
  std::string h;
  auto u32 = [&](std::uint32_t v) { for (int i = 0; i < 4; ++i) h.push_back(static_cast<char>((v >> (8 * i)) & 0xff)); };
  auto u16 = [&](std::uint16_t v) { for (int i = 0; i < 2; ++i) h.push_back(static_cast<char>((v >> (8 * i)) & 0xff)); };
  const auto block = static_cast<std::uint16_t>(channels * bits / 8);
  h += "RIFF";
  u32(data_bytes + 36);
  h += "WAVEfmt ";
  u32(16), u16(tag), u16(channels), u32(rate), u32(rate * block), u16(block), u16(bits);
  h += "data";
  u32(data_bytes);
  return h;
}

std::string tone_pcm(std::uint32_t rate, std::size_t samples) {
  std::string pcm;
  pcm.reserve(samples * 2);
  for (std::size_t i = 0; i < samples; ++i) {
    const auto v = static_cast<std::int16_t>(12000 * std::sin(2 * M_PI * 440.0 * static_cast<double>(i) / rate));
    pcm.push_back(static_cast<char>(v & 0xff));
    pcm.push_back(static_cast<char>((v >> 8) & 0xff));
  }
  return pcm;
}

class AudioIntakeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("audio_intake_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    files_ = new std::map<std::string, std::string>;
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*dir_, ignored);
    delete files_;
    delete dir_;
  }

  // The ffmpeg arguments that make each sample file; encoded on first use (ctest runs every
  // test in a process of its own, so each encodes only what it reads).
  static std::string recipe(const std::string& name) {
    const std::string tone = "-f lavfi -i sine=frequency=440:sample_rate=44100:duration=3";
    static const std::map<std::string, std::string> recipes = {
        {"tone.wav", tone + " -ac 1 -c:a pcm_s16le"},
        {"tone.mp3", tone + " -ac 2 -c:a libmp3lame -b:a 96k"},
        {"tone.ogg", tone + " -ac 2 -c:a libvorbis"},
        {"tone.opus", tone + " -ac 1 -ar 48000 -c:a libopus"},
        {"tone.flac", tone + " -ac 1 -c:a flac"},
        {"tone.m4a", tone + " -ac 2 -c:a aac"},
        {"tone.webm", tone + " -ac 2 -ar 48000 -c:a libopus"},
        {"bare.mp3", tone + " -ac 1 -c:a libmp3lame -id3v2_version 0 -write_xing 0"},
        {"adts.aac", tone + " -ac 1 -c:a aac -f adts"},
        {"float.wav", tone + " -ac 2 -c:a pcm_f32le"},
        {"vorbis.mka", tone + " -ac 1 -c:a libvorbis"},
        {"alac.m4a", tone + " -ac 1 -c:a alac"},
        {"flac.ogg", tone + " -ac 1 -c:a flac"},
        {"long.flac", "-f lavfi -i sine=frequency=440:sample_rate=16000:duration=180 -c:a flac"},
        {"image.png", "-f lavfi -i color=c=red:s=16x16 -frames:v 1"},
        {"video.mp4", "-f lavfi -i testsrc=size=64x64:rate=10:duration=1 -c:v mpeg4"},
    };
    return recipes.at(name);
  }

  // Not thread-safe: a test that reads files from several threads fetches them first.
  static const std::string& file(const std::string& name) {
    if (auto found = files_->find(name); found != files_->end()) return found->second;
    const fs::path out = *dir_ / name;
    const std::string cmd =
        "ffmpeg -nostdin -hide_banner -loglevel error -y " + recipe(name) + " '" + out.string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return (*files_)[name] = slurp(out);
  }

  static void expect_tone(const std::string& name, const std::string& format) {
    SCOPED_TRACE(name);
    auto audio = read_audio(file(name));
    ASSERT_TRUE(audio.has_value()) << audio.error().detail;
    EXPECT_EQ(audio->format, format);
    EXPECT_EQ(audio->sample_rate, 16000);
    EXPECT_FALSE(audio->truncated);
    // Encoders add priming and padding of up to a few frames; 3 s of tone stays near 3 s.
    EXPECT_NEAR(audio->seconds, 3.0, 0.15);
    EXPECT_EQ(audio->samples.size(), static_cast<std::size_t>(audio->seconds * 16000 + 0.5));
    EXPECT_NEAR(dominant_hz(*audio), 440.0, 8.0);
    for (float v : audio->samples) ASSERT_LE(std::abs(v), 1.0f);
  }

  static void expect_refused(std::string_view bytes, IntakeRefusalKind kind) {
    auto audio = read_audio(bytes);
    ASSERT_FALSE(audio.has_value());
    EXPECT_EQ(audio.error().kind, kind) << audio.error().detail;
  }

  static inline fs::path* dir_ = nullptr;
  static inline std::map<std::string, std::string>* files_ = nullptr;
};

TEST_F(AudioIntakeTest, WavPcmDecodesAtItsPitchAndLength) { expect_tone("tone.wav", "wav"); }
TEST_F(AudioIntakeTest, StereoMp3DecodesAtItsPitchAndLength) { expect_tone("tone.mp3", "mp3"); }
TEST_F(AudioIntakeTest, OggVorbisDecodesAtItsPitchAndLength) { expect_tone("tone.ogg", "ogg"); }
TEST_F(AudioIntakeTest, OggOpusDecodesAtItsPitchAndLength) { expect_tone("tone.opus", "ogg"); }
TEST_F(AudioIntakeTest, FlacDecodesAtItsPitchAndLength) { expect_tone("tone.flac", "flac"); }
TEST_F(AudioIntakeTest, M4aAacDecodesAtItsPitchAndLength) { expect_tone("tone.m4a", "mp4"); }
TEST_F(AudioIntakeTest, WebmOpusDecodesAtItsPitchAndLength) { expect_tone("tone.webm", "webm"); }

TEST_F(AudioIntakeTest, OtherShapesOfTheAcceptedFormatsDecodeToo) {
  expect_tone("bare.mp3", "mp3");  // no ID3 tag, no Xing frame: what LAME writes raw
  expect_tone("adts.aac", "aac");
  expect_tone("float.wav", "wav");
  expect_tone("vorbis.mka", "matroska");
  expect_tone("alac.m4a", "mp4");
  expect_tone("flac.ogg", "ogg");
}

TEST_F(AudioIntakeTest, NonFiniteFloatSamplesBecomeSilenceNotNan) {
  const std::uint32_t rate = 16000;
  std::string data;
  for (std::uint32_t i = 0; i < rate; ++i) {
    float v = 0.5f * static_cast<float>(std::sin(2 * M_PI * 440.0 * i / rate));
    if (i % 1000 == 0) v = std::numeric_limits<float>::quiet_NaN();
    if (i % 1000 == 500) v = std::numeric_limits<float>::infinity();
    if (i % 1000 == 700) v = 40.0f;
    data.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  auto audio = read_audio(wav_header(rate, static_cast<std::uint32_t>(data.size()), 1, 3, 32) + data);
  ASSERT_TRUE(audio.has_value()) << audio.error().detail;
  EXPECT_NEAR(audio->seconds, 1.0, 0.01);
  for (float v : audio->samples) ASSERT_TRUE(std::isfinite(v) && std::abs(v) <= 1.0f) << v;
}

TEST_F(AudioIntakeTest, AbsurdRatesAndChannelCountsAreRefused) {
  // Each header is followed by real bytes, so only the declared shape is wrong.
  const std::string pcm = tone_pcm(16000, 16000);
  for (auto [rate, channels] : {std::pair<std::uint32_t, std::uint16_t>{1, 1}, {16000, 200}, {4000000, 1}}) {
    SCOPED_TRACE(std::to_string(rate) + " Hz, " + std::to_string(channels) + " channels");
    expect_refused(wav_header(rate, static_cast<std::uint32_t>(pcm.size()), channels) + pcm,
                   IntakeRefusalKind::unsupported);
  }
}

TEST_F(AudioIntakeTest, ThreeMinutesComeBackAsSixtySecondsFlaggedTruncated) {
  auto audio = read_audio(file("long.flac"));
  ASSERT_TRUE(audio.has_value()) << audio.error().detail;
  EXPECT_TRUE(audio->truncated);
  EXPECT_EQ(audio->samples.size(), 60u * 16000u);
  EXPECT_DOUBLE_EQ(audio->seconds, 60.0);
  EXPECT_NEAR(dominant_hz(*audio), 440.0, 8.0);
}

TEST_F(AudioIntakeTest, TheLimitIsTheCallersChoice) {
  auto audio = read_audio(file("tone.flac"), IntakeLimits{.max_seconds = 1});
  ASSERT_TRUE(audio.has_value()) << audio.error().detail;
  EXPECT_TRUE(audio->truncated);
  EXPECT_EQ(audio->samples.size(), 16000u);
}

TEST_F(AudioIntakeTest, WorkCapsEndDecodingEarlyAndSaySo) {
  auto audio = read_audio(file("tone.wav"), IntakeLimits{.max_packets = 10});
  ASSERT_TRUE(audio.has_value()) << audio.error().detail;
  EXPECT_TRUE(audio->truncated);
  EXPECT_LT(audio->seconds, 3.0);
  // A deadline already passed decodes nothing: refused as unsupported, not as empty (the file
  // may well hold audio).
  auto late = read_audio(file("tone.wav"), IntakeLimits{.max_decode_time = std::chrono::milliseconds{-1}});
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error().kind, IntakeRefusalKind::unsupported);
}

TEST_F(AudioIntakeTest, TypeIsJudgedByContentNotByName) {
  // The name is never seen: a PNG under any name is a PNG.
  EXPECT_EQ(sniff_mime_type(file("image.png")), "image/png");
  expect_refused(file("image.png"), IntakeRefusalKind::unsupported);
  EXPECT_TRUE(is_accepted_mime_type(sniff_mime_type(file("tone.wav"))));
}

TEST_F(AudioIntakeTest, TextAndRandomBytesAreUnsupported) {
  expect_refused("RIFF? no, just a line of text about a voice.\n", IntakeRefusalKind::unsupported);
  std::mt19937 rng(16);
  std::string noise(256 * 1024, '\0');
  for (char& c : noise) c = static_cast<char>(rng() & 0xff);
  expect_refused(noise, IntakeRefusalKind::unsupported);
}

TEST_F(AudioIntakeTest, EmptyInputIsEmpty) { expect_refused("", IntakeRefusalKind::empty); }

TEST_F(AudioIntakeTest, VideoWithoutAudioIsUnsupported) {
  expect_refused(file("video.mp4"), IntakeRefusalKind::unsupported);
}

TEST_F(AudioIntakeTest, OversizedInputIsRefusedUnread) {
  auto audio = read_audio(file("tone.wav"), IntakeLimits{.max_input_bytes = 1000});
  ASSERT_FALSE(audio.has_value());
  EXPECT_EQ(audio.error().kind, IntakeRefusalKind::unsupported);
}

TEST_F(AudioIntakeTest, WavClaimingTenHoursDecodesWhatIsThere) {
  const std::uint32_t rate = 16000;
  const std::string bytes = wav_header(rate, rate * 2 * 36000) + tone_pcm(rate, 512 * 1024);  // 1 MB of data
  auto audio = read_audio(bytes);
  ASSERT_TRUE(audio.has_value()) << audio.error().detail;
  EXPECT_FALSE(audio->truncated);
  EXPECT_NEAR(audio->seconds, 512.0 * 1024 / rate, 0.05);
  EXPECT_NEAR(dominant_hz(*audio), 440.0, 8.0);
}

TEST_F(AudioIntakeTest, WavHeaderWithoutDataIsEmpty) {
  expect_refused(wav_header(16000, 16000 * 2 * 10), IntakeRefusalKind::empty);
}

TEST_F(AudioIntakeTest, WavCutInsideItsHeaderIsUnsupported) {
  // ffmpeg's WAV has a LIST chunk before "data": 44 bytes end inside the header.
  expect_refused(file("tone.wav").substr(0, 44), IntakeRefusalKind::unsupported);
}

TEST_F(AudioIntakeTest, HalfAStreamDecodesItsFirstHalf) {
  // (Half of the 3 s Ogg Vorbis is little more than its codebooks, which FFmpeg will not open;
  // the cuts below cover Ogg.)
  for (const char* name : {"tone.wav", "tone.mp3", "tone.flac", "tone.webm"}) {
    SCOPED_TRACE(name);
    const std::string& whole = file(name);
    auto audio = read_audio(std::string_view(whole).substr(0, whole.size() / 2));
    ASSERT_TRUE(audio.has_value()) << audio.error().detail;
    EXPECT_GT(audio->seconds, 1.0);
    EXPECT_LT(audio->seconds, 2.0);
  }
}

TEST_F(AudioIntakeTest, HalfAnMp4WithItsIndexAtTheEndIsUnsupported) {
  // ffmpeg writes the moov index last; without it the samples cannot be located.
  const std::string& whole = file("tone.m4a");
  expect_refused(std::string_view(whole).substr(0, whole.size() / 2), IntakeRefusalKind::unsupported);
}

TEST_F(AudioIntakeTest, CutsAnywhereInAFileNeverBreakIt) {
  for (const char* name : {"tone.mp3", "tone.ogg", "tone.opus", "tone.webm", "tone.m4a", "tone.flac"}) {
    const std::string& whole = file(name);
    for (std::size_t cut : {std::size_t{1}, std::size_t{4}, std::size_t{12}, std::size_t{100}, whole.size() / 3}) {
      auto audio = read_audio(std::string_view(whole).substr(0, cut));
      if (audio) {
        EXPECT_LE(audio->seconds, 3.0) << name << " cut at " << cut;
      }
    }
  }
}

TEST_F(AudioIntakeTest, SeveralThreadsDecodeAtOnce) {
  const std::vector<std::string> names = {"tone.wav", "tone.mp3", "tone.ogg", "tone.opus", "tone.m4a", "tone.webm"};
  for (const auto& name : names) file(name);
  std::vector<double> seconds(names.size(), 0);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < names.size(); ++i) {
    threads.emplace_back([&, i] {
      auto audio = read_audio(file(names[i]));
      if (audio) seconds[i] = audio->seconds;
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_NEAR(seconds[i], 3.0, 0.15) << names[i];
}

}  // namespace
}  // namespace mediagen::engines

namespace mediagen::engines {
namespace {

// The check before anything is charged or stored: real audio passes; a header with nothing after
// it, a PNG and an empty file are refused with the same kinds read_audio gives.
TEST_F(AudioIntakeTest, TheUploadCheckPassesAudioAndRefusesTheRest) {
  EXPECT_FALSE(check_upload(file("tone.mp3")).has_value());
  EXPECT_FALSE(check_upload(file("tone.opus")).has_value());
  ASSERT_TRUE(check_upload("").has_value());
  EXPECT_EQ(check_upload("")->kind, IntakeRefusalKind::empty);
  ASSERT_TRUE(check_upload(file("image.png")).has_value());
  EXPECT_EQ(check_upload(file("image.png"))->kind, IntakeRefusalKind::unsupported);
  ASSERT_TRUE(check_upload(std::string("RIFF\xff\xff\xff\x7fWAVEfmt ", 16)).has_value());
  ASSERT_TRUE(check_upload(wav_header(16000, 16000 * 2 * 10)).has_value());
}

}  // namespace
}  // namespace mediagen::engines
