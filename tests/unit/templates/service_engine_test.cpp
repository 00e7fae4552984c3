// The rules of an operator's engine choice (templates/service_engine.hpp) and the upstream voice
// ids in the spec's formats (voices/catalogue_builder.hpp).
#include <gtest/gtest.h>

#include <regex>

#include "mediagen/templates/service_engine.hpp"
#include "mediagen/voices/catalogue_builder.hpp"

namespace mediagen::templates {
namespace {

EngineChoice choice(std::string kind, std::string url = "http://127.0.0.1:8880/v1") {
  return {"provider_a", std::move(kind), {std::move(url), "", "", "", {}}};
}

TEST(ServiceEngine, KindsFitTheirServices) {
  EXPECT_FALSE(check_engine_choice(ServiceKind::tts, choice("openai")));
  EXPECT_FALSE(check_engine_choice(ServiceKind::tts, choice("elevenlabs")));
  EXPECT_FALSE(check_engine_choice(ServiceKind::sfx, choice("elevenlabs")));
  EXPECT_FALSE(check_engine_choice(ServiceKind::music, choice("embedded")));
  EXPECT_TRUE(check_engine_choice(ServiceKind::sfx, choice("openai")));
  EXPECT_TRUE(check_engine_choice(ServiceKind::music, choice("espeak")));
  EXPECT_TRUE(check_engine_choice(ServiceKind::voice_search, choice("elevenlabs")));
}

TEST(ServiceEngine, AnUpstreamNeedsAUrlAndOneKeySource) {
  EXPECT_TRUE(check_engine_choice(ServiceKind::tts, choice("openai", "")));
  EXPECT_TRUE(check_engine_choice(ServiceKind::tts, choice("openai", "ftp://host")));
  EXPECT_TRUE(check_engine_choice(ServiceKind::tts, choice("openai", "http:// spaced")));
  EXPECT_FALSE(check_engine_choice(ServiceKind::tts, choice("espeak", "")));
  auto c = choice("openai");
  c.upstream.key_env = "KOKORO_KEY";
  EXPECT_FALSE(check_engine_choice(ServiceKind::tts, c));
  c.upstream.key_file = "/run/secrets/key";
  EXPECT_TRUE(check_engine_choice(ServiceKind::tts, c));  // both
  c.upstream.key_env.clear();
  EXPECT_FALSE(check_engine_choice(ServiceKind::tts, c));
  c.upstream.key_file = "relative/key";
  EXPECT_TRUE(check_engine_choice(ServiceKind::tts, c));
  c.upstream.key_file.clear();
  c.upstream.key_env = "1BAD-NAME";
  EXPECT_TRUE(check_engine_choice(ServiceKind::tts, c));
}

TEST(ServiceEngine, UpstreamJsonRoundTrips) {
  const ServiceUpstream u{"http://x", "m", "K", "", {"a", "b"}};
  const auto back = upstream_from_json(upstream_to_json(u));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->url, "http://x");
  EXPECT_EQ(back->voices, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(upstream_from_json(R"({"model":"m"})"));
  EXPECT_FALSE(upstream_from_json("[]"));
}

TEST(UpstreamVoiceIds, KeepTheSpecFormatsAndStayStable) {
  using voices::spec_voice_id;
  EXPECT_EQ(spec_voice_id("provider_a", "21m00Tcm4TlvDq8ikWAM"), "21m00Tcm4TlvDq8ikWAM");
  EXPECT_TRUE(std::regex_match(spec_voice_id("provider_a", "af_bella"), std::regex("[A-Za-z0-9]{20}")));
  EXPECT_EQ(spec_voice_id("provider_a", "af_bella"), spec_voice_id("provider_a", "af_bella"));
  EXPECT_NE(spec_voice_id("provider_a", "af_bella"), spec_voice_id("provider_a", "am_adam"));
  EXPECT_TRUE(std::regex_match(spec_voice_id("provider_c", "21m00Tcm4TlvDq8ikWAM"),
                               std::regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")));
  EXPECT_TRUE(std::regex_match(spec_voice_id("provider_d", "af_bella"), std::regex("[0-9a-f]{32}")));
  EXPECT_EQ(spec_voice_id("provider_b", "af_bella"), "af-bella");
  EXPECT_EQ(spec_voice_id("provider_b", "en-us-ava"), "en-us-ava");
  const auto seeds = voices::upstream_voice_seeds("provider_a", {{"af_bella", "Bella", "", "female"}, {"af_bella", "", "", ""}});
  ASSERT_EQ(seeds.size(), 1U);
  EXPECT_EQ(seeds[0].upstream_voice_id, "af_bella");
  EXPECT_EQ(seeds[0].language, "en");
  EXPECT_EQ(seeds[0].gender, "female");
}

}  // namespace
}  // namespace mediagen::templates
