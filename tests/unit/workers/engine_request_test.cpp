#include "workers/engine_request.hpp"

#include <gtest/gtest.h>

namespace mediagen::workers::detail {
namespace {

TEST(EngineRequest, ReadsEngineVoiceAndSettings) {
  const auto r = parse_engine_request(
      R"({"engine":"espeak","voice":"en-us","variant":"m3","language":"en",)"
      R"("settings":{"stability":0.4,"similarity_boost":0.9,"speed":1.1,"use_speaker_boost":false}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->engine, "espeak");
  EXPECT_EQ(r->speech.espeak_voice, "en-us");
  EXPECT_EQ(r->speech.variant, "m3");
  EXPECT_EQ(r->speech.language_code, "en");
  EXPECT_DOUBLE_EQ(*r->speech.settings.stability, 0.4);
  EXPECT_DOUBLE_EQ(*r->speech.settings.similarity_boost, 0.9);
  EXPECT_DOUBLE_EQ(*r->speech.settings.speed, 1.1);
  EXPECT_EQ(r->speech.settings.use_speaker_boost, false);
}

TEST(EngineRequest, AbsentOrNullFieldsLeaveTheEngineDefaults) {
  const auto r = parse_engine_request(R"({"engine":"none","voice":null,"settings":{"speed":null}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->engine, "none");
  EXPECT_EQ(r->speech.espeak_voice, "");
  EXPECT_FALSE(r->speech.settings.speed);
  EXPECT_FALSE(r->speech.settings.use_speaker_boost);
}

TEST(EngineRequest, RefusesWhatIsNotAnEngineRequest) {
  EXPECT_FALSE(parse_engine_request("{}"));
  EXPECT_FALSE(parse_engine_request("[]"));
  EXPECT_FALSE(parse_engine_request("not json"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":1})"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak","voice":5})"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak","settings":[]})"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak","settings":{"speed":"fast"}})"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak","settings":{"use_speaker_boost":1}})"));
}

TEST(EngineRequest, ReadsAnUpstreamTarget) {
  const auto r = parse_engine_request(
      R"({"engine":"elevenlabs","voice":"en","upstream":{"service":"provider_c","url":"http://u","model":"m",)"
      R"("key_env":"K","key_file":"","voice":"21m00Tcm4TlvDq8ikWAM"}})");
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->upstream);
  EXPECT_EQ(r->upstream->kind, engines::UpstreamKind::elevenlabs);
  EXPECT_EQ(r->upstream->voice, "21m00Tcm4TlvDq8ikWAM");
  EXPECT_EQ(r->upstream->key_env, "K");
  // An upstream under an engine that is none, or without a URL, is malformed.
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak","upstream":{"url":"http://u"}})"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":"openai","upstream":{"model":"m"}})"));
}

TEST(EngineRequest, ReadsAVoiceSearch) {
  auto r = parse_engine_request(R"({"engine":"voice_search","upload":"orders/x/input/sample","top":7})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->engine, "voice_search");
  EXPECT_EQ(r->upload, "orders/x/input/sample");
  EXPECT_EQ(r->top, 7);
  EXPECT_FALSE(parse_engine_request(R"({"engine":"voice_search","upload":3})"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":"voice_search","top":"7"})"));
}

// A voice clone's order carries the clone's profile, so the order speaks the same after the
// clone is archived.
TEST(EngineRequest, ReadsAVoiceClonesProfile) {
  const auto r = parse_engine_request(
      R"({"engine":"espeak","voice":"gmw/en-US","variant":"f2",)"
      R"("profile":{"voice":"gmw/en-US","variant":"f2","pitch":63,"range":40,"rate":190}})");
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->speech.profile);
  EXPECT_EQ(r->speech.profile->pitch, 63);
  EXPECT_EQ(r->speech.profile->pitch_range, 40);
  EXPECT_EQ(r->speech.profile->rate_wpm, 190);
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak"})")->speech.profile);
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak","profile":{"voice":"x"}})"));
  EXPECT_FALSE(parse_engine_request(R"({"engine":"espeak","profile":[]})"));
}

}  // namespace
}  // namespace mediagen::workers::detail
