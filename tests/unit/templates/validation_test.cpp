#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "unit/templates/catalogue_fixture.hpp"

namespace mediagen::templates {
namespace {

using json = nlohmann::json;
using test::FakeCatalogue;

json valid_body() {
  return json::parse(R"({
    "service_key": "provider_a",
    "name": "Narrator",
    "config": {"tts_settings": {"mode": "mode_v1", "model_id": "a-v3", "voice_id": "aaaaaaaaaaaaaaaaaaaa"}}
  })");
}

// The field paths of a 422, in order, and the message keys of one of them.
std::vector<std::string> fields(const ApiError& e) {
  std::vector<std::string> out;
  for (const auto& f : e.fields) out.push_back(f.field);
  return out;
}

std::string key_of(const ApiError& e, std::string_view field) {
  for (const auto& f : e.fields) {
    if (f.field == field) return f.messages.at(0).key;
  }
  return "<no error for " + std::string(field) + ">";
}

Result<ValidatedTemplate> check(const json& body, NameRule rule = NameRule::required) {
  FakeCatalogue catalogue;
  return validate_template(body, catalogue, rule);
}

TEST(TemplateValidation, AcceptsTheCreateExampleAndNormalisesTheConfig) {
  auto r = check(valid_body());
  ASSERT_TRUE(r) << fields(r.error()).size();
  EXPECT_EQ(r->name, "Narrator");
  EXPECT_EQ(r->setup.service.key, "provider_a");
  EXPECT_EQ(r->setup.model.model_id, "a-v3");
  EXPECT_EQ(r->setup.mode, "mode_v1");
  EXPECT_EQ(r->setup.voice.espeak_voice, "gmw/en-US");
  EXPECT_EQ(r->setup.voice.espeak_variant, "Alicia");
  EXPECT_FALSE(r->setup.language_code);
  EXPECT_FALSE(r->setup.advanced_voice_settings);
  EXPECT_EQ(json::parse(r->setup.config_json),
            json::parse(R"({"tts_settings":{"mode":"mode_v1","model_id":"a-v3","voice_id":"aaaaaaaaaaaaaaaaaaaa",
                          "language_code":null,"advanced_voice_settings":false,"voice_settings":{}}})"));
}

TEST(TemplateValidation, KeepsGivenSettingsInSchemaOrderAndDropsUnknownKeysOutsideThem) {
  auto body = valid_body();
  body["extra"] = 1;
  body["config"]["other"] = true;
  auto& tts = body["config"]["tts_settings"];
  tts["language_code"] = "de";
  tts["advanced_voice_settings"] = true;
  tts["voice_settings"] = {{"speed", 1.2}, {"stability", 0}, {"use_speaker_boost", false}, {"similarity_boost", nullptr}};
  tts["surprise"] = "x";
  auto r = check(body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->setup.config_json,
            R"({"tts_settings":{"mode":"mode_v1","model_id":"a-v3","voice_id":"aaaaaaaaaaaaaaaaaaaa","language_code":"de",)"
            R"("advanced_voice_settings":true,"voice_settings":{"stability":0,"use_speaker_boost":false,"speed":1.2}}})");
  EXPECT_EQ(r->setup.requested.stability, 0.0);
  EXPECT_FALSE(r->setup.requested.similarity_boost);
  EXPECT_EQ(r->setup.requested.use_speaker_boost, false);
  EXPECT_EQ(r->setup.requested.speed, 1.2);
  // Advanced on a third-generation model: everything honoured, defaults for the rest.
  EXPECT_EQ(r->setup.effective, (VoiceSettings{0.0, 0.75, 1.2, false}));
  EXPECT_EQ(r->setup.language_code, "de");
}

TEST(TemplateValidation, TrimsTheNameAndBoundsItsLengthInCharacters) {
  auto body = valid_body();
  body["name"] = "  Диктор  ";
  auto r = check(body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "Диктор");

  body["name"] = std::string(255 * 2, 'x').substr(0, 255);
  EXPECT_TRUE(check(body));
  std::string cyrillic;
  for (int i = 0; i < 255; ++i) cyrillic += "я";
  body["name"] = cyrillic;  // 510 bytes, 255 characters
  EXPECT_TRUE(check(body));
  body["name"] = cyrillic + "я";
  auto e = check(body);
  ASSERT_FALSE(e);
  EXPECT_EQ(key_of(e.error(), "name"), "validation.max_string");

  for (const json& bad : {json("   "), json(""), json(nullptr)}) {
    body["name"] = bad;
    auto r2 = check(body);
    ASSERT_FALSE(r2) << bad;
    EXPECT_EQ(key_of(r2.error(), "name"), "validation.required") << bad;
  }
  body["name"] = 5;
  EXPECT_EQ(key_of(check(body).error(), "name"), "validation.string");
  body.erase("name");
  EXPECT_TRUE(check(body, NameRule::ignored));
}

TEST(TemplateValidation, ReportsEveryMissingFieldAtOnce) {
  auto r = check(json::object());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().status, 422);
  EXPECT_EQ(fields(r.error()), (std::vector<std::string>{"name", "service_key", "config"}));

  auto body = valid_body();
  body["config"]["tts_settings"] = json::object();
  r = check(body);
  ASSERT_FALSE(r);
  EXPECT_EQ(fields(r.error()), (std::vector<std::string>{"config.tts_settings.mode", "config.tts_settings.model_id",
                                                         "config.tts_settings.voice_id"}));
  for (const auto& f : r.error().fields) EXPECT_EQ(f.messages.at(0).key, "validation.required");
}

TEST(TemplateValidation, RefusesWrongTypes) {
  EXPECT_EQ(key_of(check(json::array()).error(), "body"), "validation.object");
  auto body = valid_body();
  body["config"] = "x";
  EXPECT_EQ(key_of(check(body).error(), "config"), "validation.object");
  body = valid_body();
  body["config"]["tts_settings"] = json::array();
  EXPECT_EQ(key_of(check(body).error(), "config.tts_settings"), "validation.object");
  body = valid_body();
  body["service_key"] = 1;
  EXPECT_EQ(key_of(check(body).error(), "service_key"), "validation.string");
  body = valid_body();
  body["config"]["tts_settings"]["mode"] = true;
  EXPECT_EQ(key_of(check(body).error(), "config.tts_settings.mode"), "validation.string");
  body = valid_body();
  body["config"]["tts_settings"]["advanced_voice_settings"] = "true";
  EXPECT_EQ(key_of(check(body).error(), "config.tts_settings.advanced_voice_settings"), "validation.boolean");
  body["config"]["tts_settings"]["advanced_voice_settings"] = 1;
  EXPECT_EQ(key_of(check(body).error(), "config.tts_settings.advanced_voice_settings"), "validation.boolean");
  body = valid_body();
  body["config"]["tts_settings"]["voice_settings"] = json::array();
  EXPECT_EQ(key_of(check(body).error(), "config.tts_settings.voice_settings"), "validation.object");
  body = valid_body();
  body["config"]["tts_settings"]["voice_settings"] = {{"stability", "0.5"}, {"use_speaker_boost", 1}, {"speed", true}};
  auto r = check(body);
  ASSERT_FALSE(r);
  EXPECT_EQ(key_of(r.error(), "config.tts_settings.voice_settings.stability"), "validation.numeric");
  EXPECT_EQ(key_of(r.error(), "config.tts_settings.voice_settings.use_speaker_boost"), "validation.boolean");
  EXPECT_EQ(key_of(r.error(), "config.tts_settings.voice_settings.speed"), "validation.numeric");
}

TEST(TemplateValidation, RefusesAnythingButAnActiveVoiceService) {
  FakeCatalogue catalogue;
  auto body = valid_body();
  for (const char* key : {"sfx", "music", "voice_search", "provider_z", "PROVIDER_A", ""}) {
    body["service_key"] = key;
    auto r = validate_template(body, catalogue, NameRule::required);
    ASSERT_FALSE(r) << key;
    EXPECT_EQ(key_of(r.error(), "service_key"), std::string(*key ? "validation.service_unknown" : "validation.required"))
        << key;
    // Service-dependent checks wait for a valid service.
    EXPECT_EQ(fields(r.error()), std::vector<std::string>{"service_key"}) << key;
  }
  catalogue.services["provider_a"].service.active = false;
  body["service_key"] = "provider_a";
  EXPECT_EQ(key_of(validate_template(body, catalogue, NameRule::required).error(), "service_key"),
            "validation.service_unknown");
}

TEST(TemplateValidation, ChecksModelModeAndVoiceAgainstTheServicesCatalogue) {
  FakeCatalogue catalogue;
  auto body = valid_body();
  auto& tts = body["config"]["tts_settings"];
  tts["model_id"] = "b-standard";  // a model of another service
  tts["mode"] = "mode_v2";
  tts["voice_id"] = "en-us-alicia";  // a voice of another service
  auto r = validate_template(body, catalogue, NameRule::required);
  ASSERT_FALSE(r);
  EXPECT_EQ(key_of(r.error(), "config.tts_settings.model_id"), "validation.model_unavailable");
  EXPECT_EQ(key_of(r.error(), "config.tts_settings.mode"), "validation.mode_unsupported");
  EXPECT_EQ(key_of(r.error(), "config.tts_settings.voice_id"), "validation.voice_unknown");
  EXPECT_EQ(r.error().fields.at(0).messages.at(0).params.back(), (std::pair<std::string, std::string>{"service", "provider_a"}));

  // A deactivated model or mode is refused like an unknown one.
  body = valid_body();
  for (auto& m : catalogue.services["provider_a"].models) {
    if (m.model_id == "a-v3") m.active = false;
  }
  EXPECT_EQ(key_of(validate_template(body, catalogue, NameRule::required).error(), "config.tts_settings.model_id"),
            "validation.model_unavailable");
  catalogue.services["provider_a"].modes[0].active = false;
  EXPECT_EQ(key_of(validate_template(body, catalogue, NameRule::required).error(), "config.tts_settings.mode"),
            "validation.mode_unsupported");
}

TEST(TemplateValidation, ChecksTheLanguageCodeFormatAndTheModelsLanguages) {
  auto body = valid_body();
  auto& tts = body["config"]["tts_settings"];
  for (const char* bad : {"EN", "eng", "e", "en-US", "e1", " en", ""}) {
    tts["language_code"] = bad;
    EXPECT_EQ(key_of(check(body).error(), "config.tts_settings.language_code"), "validation.language_code") << bad;
  }
  tts["language_code"] = 12;
  EXPECT_EQ(key_of(check(body).error(), "config.tts_settings.language_code"), "validation.string");
  tts["language_code"] = nullptr;
  EXPECT_TRUE(check(body));
  // a-v3 takes every language of the service's voices (de, en, ru in the fixture)...
  tts["language_code"] = "ru";
  EXPECT_TRUE(check(body));
  tts["language_code"] = "fr";
  auto r = check(body);
  ASSERT_FALSE(r);
  EXPECT_EQ(key_of(r.error(), "config.tts_settings.language_code"), "validation.language_unsupported");
  // ...a-v4-flash its own list.
  tts["model_id"] = "a-v4-flash";
  EXPECT_TRUE(check(body));
  tts["language_code"] = "af";
  EXPECT_FALSE(check(body));
}

TEST(TemplateValidation, BoundsVoiceSettingsByTheModelsSchema) {
  struct Case {
    const char* key;
    json value;
    bool ok;
  };
  const std::vector<Case> cases{
      {"stability", 0, true},          {"stability", 1, true},          {"stability", 0.5, true},
      {"stability", -0.01, false},     {"stability", 1.0001, false},    {"similarity_boost", 0.75, true},
      {"similarity_boost", 2, false},  {"speed", 0.7, true},            {"speed", 1.2, true},
      {"speed", 0.69, false},          {"speed", 1.21, false},          {"speed", 1, true},
      {"use_speaker_boost", true, true}, {"use_speaker_boost", false, true},
  };
  for (const auto& c : cases) {
    auto body = valid_body();
    body["config"]["tts_settings"]["voice_settings"] = {{c.key, c.value}};
    auto r = check(body);
    EXPECT_EQ(static_cast<bool>(r), c.ok) << c.key << "=" << c.value;
    if (!r) {
      const std::string field = std::string("config.tts_settings.voice_settings.") + c.key;
      EXPECT_EQ(key_of(r.error(), field), "validation.between");
    }
  }
  auto body = valid_body();
  body["config"]["tts_settings"]["voice_settings"] = {{"speed", 3}};
  const auto refused = check(body);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().fields.at(0).messages.at(0).params, (std::vector<std::pair<std::string, std::string>>{
                        {"attribute", "config.tts_settings.voice_settings.speed"}, {"min", "0.7"}, {"max", "1.2"}}));
  body["config"]["tts_settings"]["voice_settings"] = {{"style", 0.3}};
  EXPECT_EQ(key_of(check(body).error(), "config.tts_settings.voice_settings.style"), "validation.setting_unknown");
}

TEST(TemplateValidation, AppliesTheCurrentSchemaSoANarrowedBoundRefusesAStoredValue) {
  FakeCatalogue catalogue;
  auto body = valid_body();
  body["config"]["tts_settings"]["voice_settings"] = {{"speed", 1.15}};
  ASSERT_TRUE(validate_template(body, catalogue, NameRule::required));
  for (auto& m : catalogue.services["provider_a"].models) {
    for (auto& s : m.settings_schema) {
      if (s.key == "speed") s.max = 1.1;
    }
  }
  EXPECT_FALSE(validate_template(body, catalogue, NameRule::required));
}

TEST(TemplateValidation, RefusesStringsWithANulCharacter) {
  auto body = valid_body();
  body["name"] = std::string("a\0b", 3);
  EXPECT_EQ(key_of(check(body).error(), "name"), "validation.string");
  body = valid_body();
  body["service_key"] = std::string("provider_a\0x", 12);
  EXPECT_EQ(key_of(check(body).error(), "service_key"), "validation.string");
}

TEST(TemplateValidation, RecognisesUuids) {
  EXPECT_TRUE(is_uuid("0b9c8e36-2f44-4d5a-9a3e-6a1f0c2d3e4f"));
  EXPECT_TRUE(is_uuid("0B9C8E36-2F44-4D5A-9A3E-6A1F0C2D3E4F"));
  for (const char* bad : {"", "0b9c8e36", "0b9c8e362f444d5a9a3e6a1f0c2d3e4f", "0b9c8e36-2f44-4d5a-9a3e-6a1f0c2d3e4g",
                          "0b9c8e36-2f44-4d5a-9a3e-6a1f0c2d3e4f0", "{0b9c8e36-2f44-4d5a-9a3e-6a1f0c2d3e4}",
                          "0b9c8e36_2f44_4d5a_9a3e_6a1f0c2d3e4f"}) {
    EXPECT_FALSE(is_uuid(bad)) << bad;
  }
}

}  // namespace
}  // namespace mediagen::templates
