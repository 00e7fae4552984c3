// The ElevenLabs-compatible surface's pure parts: the bodies and output_format as ElevenLabs reads
// them, its error shape, the timestamped framings, and every format's converter.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "mediagen/engines/codec/audio_out.hpp"
#include "compat/elevenlabs/el_errors.hpp"
#include "compat/elevenlabs/el_framing.hpp"
#include "compat/elevenlabs/el_request.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/engines/audio.hpp"

namespace mediagen::compat::elevenlabs {
namespace {

using nlohmann::json;

std::string status_of(const ApiError& e) {
  return json::parse(elevenlabs_error(e, Locale::en).body)["detail"]["status"].get<std::string>();
}

TEST(ElevenLabsRequest, ReadsTheSdkBodyWithNullsAsAbsent) {
  auto body = read_speech_body(json::parse(R"({"text":"Hi.","model_id":null,"voice_settings":{"stability":0.5,
      "similarity_boost":0.7,"style":0,"use_speaker_boost":true,"speed":1},"seed":42,"previous_text":"p",
      "next_text":null,"language_code":"en","unknown":1})"));
  ASSERT_TRUE(body) << body.error().internal;
  EXPECT_EQ(body->text, "Hi.");
  EXPECT_FALSE(body->model_id);
  EXPECT_EQ(body->settings.stability, 0.5);
  EXPECT_EQ(body->settings.use_speaker_boost, true);
  EXPECT_EQ(body->seed, 42u);
  EXPECT_EQ(body->previous_text, "p");
  EXPECT_FALSE(body->next_text);
  EXPECT_EQ(body->language_code, "en");
}

TEST(ElevenLabsRequest, EachBadFieldIsA422NamingIt) {
  const std::vector<std::pair<const char*, const char*>> cases{
      {R"({})", "invalid_text"},
      {R"({"text":""})", "invalid_text"},
      {R"({"text":5})", "invalid_text"},
      {R"({"text":"a","voice_settings":{"speed":1.5}})", "invalid_voice_settings_speed"},
      {R"({"text":"a","voice_settings":{"stability":"high"}})", "invalid_voice_settings_stability"},
      {R"({"text":"a","voice_settings":[]})", "invalid_voice_settings"},
      {R"({"text":"a","seed":-1})", "invalid_seed"},
      {R"({"text":"a","seed":4294967296})", "invalid_seed"},
      {R"({"text":"a","language_code":"e n"})", "invalid_language_code"},
      {R"([1])", "invalid_body"},
  };
  for (const auto& [text, status] : cases) {
    auto body = read_speech_body(json::parse(text));
    ASSERT_FALSE(body) << text;
    EXPECT_EQ(body.error().status, 422);
    EXPECT_EQ(status_of(body.error()), status) << text;
    EXPECT_EQ(elevenlabs_error(body.error(), Locale::en).status, 422);
  }
}

TEST(ElevenLabsRequest, SoundAndMusicBounds) {
  EXPECT_TRUE(read_sound_body(json::parse(R"({"text":"door","duration_seconds":0.5})")));
  EXPECT_EQ(status_of(read_sound_body(json::parse(R"({"text":"door","duration_seconds":30})")).error()),
            "invalid_duration_seconds");
  auto music = read_music_body(json::parse(R"({"prompt":"calm","music_length_ms":10000,"seed":7})"));
  ASSERT_TRUE(music);
  EXPECT_EQ(music->length_ms, 10000);
  EXPECT_EQ(status_of(read_music_body(json::parse(R"({"composition_plan":{}})")).error()), "invalid_prompt");
}

TEST(ElevenLabsRequest, OutputFormatByItsExactName) {
  EXPECT_EQ(read_output_format("")->name(), "mp3_44100_128");
  EXPECT_EQ(read_output_format("output_format=pcm_16000&enable_logging=false")->name(), "pcm_16000");
  EXPECT_EQ(status_of(read_output_format("output_format=MP3_44100_128").error()), "invalid_output_format");
  EXPECT_EQ(status_of(read_output_format("output_format=wav_44100").error()), "invalid_output_format");
  for (auto name : engines::output_format_names()) EXPECT_EQ(engines::parse_output_format(name)->name(), name);
}

TEST(ElevenLabsErrors, StatusesAndCodes) {
  EXPECT_EQ(status_of(ApiError::api_key_invalid()), "invalid_api_key");
  EXPECT_EQ(status_of(ApiError::api_key_missing()), "invalid_api_key");
  EXPECT_EQ(status_of(ApiError::permission_denied("orders.write")), "missing_permissions");
  EXPECT_EQ(status_of(voice_not_found("x")), "voice_not_found");
  EXPECT_EQ(elevenlabs_error(voice_not_found("x"), Locale::en).status, 404);
  EXPECT_EQ(status_of(ApiError::refused(Reason::insufficient_balance)), "insufficient_balance");
  EXPECT_EQ(elevenlabs_error(ApiError::refused(Reason::insufficient_balance), Locale::en).status, 402);
  const auto missing = json::parse(elevenlabs_error(ApiError::api_key_missing(), Locale::en).body);
  EXPECT_NE(missing["detail"]["message"].get<std::string>().find("xi-api-key"), std::string::npos);
}

// One second of a 440 Hz tone at 22.05 kHz, as a chunk's MP3.
std::string tone_mp3() {
  std::vector<std::int16_t> pcm(22050);
  for (std::size_t i = 0; i < pcm.size(); ++i) pcm[i] = static_cast<std::int16_t>(8000 * std::sin(2 * M_PI * 440 * i / 22050.0));
  return engines::encode_mp3(pcm, 22050).value().bytes;
}

TEST(ElevenLabsFormats, EveryFormatConverts) {
  const auto mp3 = tone_mp3();
  for (auto name : engines::output_format_names()) {
    const auto format = *engines::parse_output_format(name);
    auto out = engines::make_audio_out(format);
    ASSERT_NE(out, nullptr) << name;
    std::string all = out->feed(mp3).value();
    all += out->finish().value();
    ASSERT_FALSE(all.empty()) << name;
    if (format.codec == engines::OutputCodec::pcm) {
      EXPECT_NEAR(static_cast<double>(all.size()) / 2 / format.sample_rate, 1.0, 0.15) << name;
    } else if (format.codec == engines::OutputCodec::ulaw) {
      EXPECT_NEAR(static_cast<double>(all.size()) / 8000, 1.0, 0.15);
    } else if (format.codec == engines::OutputCodec::opus) {
      EXPECT_EQ(all.substr(0, 4), "OggS");
    } else {
      EXPECT_NE(all.substr(0, 3), "ID3") << name;  // bare frames: they stream
      EXPECT_EQ(static_cast<unsigned char>(all[0]), 0xFF) << name;
      EXPECT_EQ(engines::scan_mp3(all).value().sample_rate, format.sample_rate) << name;
    }
  }
}

ChunkState ready(std::string text, std::string timings, std::int64_t duration_ms) {
  ChunkState s;
  s.kind = ChunkState::Kind::ready;
  s.duration_ms = duration_ms;
  s.speech = orders::ItemSpeech{std::move(text), std::move(timings)};
  return s;
}

TEST(ElevenLabsFraming, WholeObjectCarriesTheAudioAndEveryCharacter) {
  auto framing = whole_timestamps();
  framing->chunk(ready("Hi there.", "[[0,2,50],[3,6,400]]", 1000));
  std::string out = framing->piece("abcd", 0.5);
  out += framing->piece("ef", 1.0);
  framing->chunk(ready("Bye.", "[[0,4,60]]", 500));
  out += framing->piece("g", 1.0);
  out += framing->end("");
  const auto doc = json::parse(out);
  EXPECT_EQ(crypto::base64_decode(doc["audio_base64"].get<std::string>()), "abcdefg");
  std::string chars;
  for (const auto& c : doc["alignment"]["characters"]) chars += c.get<std::string>();
  EXPECT_EQ(chars, "Hi there. Bye.");
  const auto starts = doc["alignment"]["character_start_times_seconds"].get<std::vector<double>>();
  EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end()));
  EXPECT_DOUBLE_EQ(starts[0], 0.05);  // "Hi" at its word
  EXPECT_DOUBLE_EQ(starts[3], 0.4);    // "there" starts at its word
  EXPECT_DOUBLE_EQ(starts[10], 1.06);  // "Bye" starts after the first chunk's whole length
  EXPECT_DOUBLE_EQ(doc["alignment"]["character_end_times_seconds"].back().get<double>(), 1.5);
  EXPECT_EQ(doc["normalized_alignment"], doc["alignment"]);
}

TEST(ElevenLabsFraming, LinesCarryEachCharacterOnceInOrder) {
  auto framing = timestamp_lines();
  framing->chunk(ready("One two.", "[[0,3,0],[4,4,500]]", 1000));
  std::string out = framing->piece("aa", 0.3);
  out += framing->piece("", 0.6);
  out += framing->piece("bb", 1.0);
  out += framing->end("cc");
  std::string chars;
  std::string audio;
  std::size_t lines = 0;
  for (std::size_t at = 0; at < out.size();) {
    const auto nl = out.find('\n', at);
    ASSERT_NE(nl, std::string::npos);
    const auto line = json::parse(out.substr(at, nl - at));
    audio += crypto::base64_decode(line["audio_base64"].get<std::string>()).value();
    if (line.contains("alignment")) {
      for (const auto& c : line["alignment"]["characters"]) chars += c.get<std::string>();
    }
    ++lines;
    at = nl + 1;
  }
  EXPECT_EQ(lines, 3u);
  EXPECT_EQ(audio, "aabbcc");
  EXPECT_EQ(chars, "One two.");
}

}  // namespace
}  // namespace mediagen::compat::elevenlabs
