// The voice-settings rule of spec section 1, as a table over the demo catalogue's models.
#include <gtest/gtest.h>

#include "mediagen/templates/seed.hpp"
#include "unit/templates/catalogue_fixture.hpp"

namespace mediagen::templates {
namespace {

using test::demo_model;

constexpr std::optional<double> none = std::nullopt;

const VoiceSettings kAllGiven{0.2, 0.9, 1.15, false};
const VoiceSettings kNoneGiven{};
// Schema defaults of the demo models.
const VoiceSettings kDefaults{0.5, 0.75, 1.0, true};

struct Row {
  const char* service;
  const char* model;
  int generation;
  bool advanced;
  VoiceSettings requested;
  VoiceSettings expected;
};

TEST(VoiceSettingsRule, FollowsTheTableOfSection1) {
  const std::vector<Row> table{
      // provider_a, generation 2 (multilingual v2): the flag has no effect.
      {"provider_a", "a-multilingual-v2", 2, false, kAllGiven, kAllGiven},
      {"provider_a", "a-multilingual-v2", 2, true, kAllGiven, kAllGiven},
      {"provider_a", "a-multilingual-v2", 2, false, kNoneGiven, kDefaults},
      // generation 3 without the flag: only stability; speed and the rest silently ignored.
      {"provider_a", "a-v3", 3, false, kAllGiven, {0.2, none, none, std::nullopt}},
      {"provider_a", "a-v3-turbo", 3, false, kAllGiven, {0.2, none, none, std::nullopt}},
      {"provider_a", "a-v3", 3, false, kNoneGiven, {0.5, none, none, std::nullopt}},
      {"provider_a", "a-v3", 3, true, kAllGiven, kAllGiven},
      {"provider_a", "a-v3", 3, true, kNoneGiven, kDefaults},
      // generation 4 without the flag: stability and similarity_boost.
      {"provider_a", "a-v4", 4, false, kAllGiven, {0.2, 0.9, none, std::nullopt}},
      {"provider_a", "a-v4-flash", 4, false, kAllGiven, {0.2, 0.9, none, std::nullopt}},
      {"provider_a", "a-v4", 4, false, kNoneGiven, {0.5, 0.75, none, std::nullopt}},
      {"provider_a", "a-v4", 4, true, kAllGiven, kAllGiven},
      // Other services: the flag has no effect.
      {"provider_b", "b-standard", 1, false, kAllGiven, kAllGiven},
      {"provider_b", "b-standard", 1, true, kAllGiven, kAllGiven},
      {"provider_c", "c-three", 1, false, kAllGiven, kAllGiven},
      {"provider_c", "c-one", 1, false, kNoneGiven, kDefaults},
      {"provider_d", "d-base", 1, false, kAllGiven, kAllGiven},
      {"provider_d", "d-base", 1, true, kNoneGiven, kDefaults},
      // A generation-3 model of another service is not the provider_a rule.
      {"provider_c", "c-gen3", 3, false, kAllGiven, kAllGiven},
      // Partly given: the given value wins, the rest take defaults, unhonoured stay off.
      {"provider_a", "a-v4", 4, false, {none, 0.1, 0.8, true}, {0.5, 0.1, none, std::nullopt}},
      {"provider_b", "b-standard", 1, false, {none, none, 0.8, std::nullopt}, {0.5, 0.75, 0.8, true}},
  };
  for (const auto& row : table) {
    const Model model = demo_model(row.service, row.model, row.generation);
    EXPECT_EQ(effective_voice_settings(model, row.requested, row.advanced), row.expected)
        << row.service << " " << row.model << " advanced=" << row.advanced;
  }
}

TEST(VoiceSettingsRule, TheDemoCatalogueCarriesTheRuleAsData) {
  for (const auto& s : demo_services()) {
    for (const auto& m : s.models) {
      const auto basic = basic_settings(s.key, m.generation);
      if (s.key == "provider_a" && m.generation == 3) {
        EXPECT_EQ(basic, std::vector<std::string>{"stability"}) << m.model_id;
      } else if (s.key == "provider_a" && m.generation == 4) {
        EXPECT_EQ(basic, (std::vector<std::string>{"stability", "similarity_boost"})) << m.model_id;
      } else {
        EXPECT_EQ(basic, all_settings()) << m.model_id;
      }
    }
  }
}

TEST(VoiceSettingsRule, ASettingMissingFromTheSchemaIsNeverSent) {
  Model model = demo_model("provider_b", "b-standard", 1);
  model.settings_schema.pop_back();  // no speed in this model's schema
  model.settings_honoured.pop_back();
  model.settings_basic.pop_back();
  const auto out = effective_voice_settings(model, kAllGiven, false);
  EXPECT_FALSE(out.speed);
  EXPECT_EQ(out.stability, 0.2);
}

TEST(DemoCatalogue, HasTheFixedServicesModelsAndUnits) {
  std::map<std::string, std::vector<std::string>> models;
  for (const auto& s : demo_services()) {
    // Speech is priced per 1,000 characters; sound effects and music per 1,000 seconds of audio;
    // voice search per 1,000 searches (one flat price an order).
    const bool by_seconds = s.kind == ServiceKind::sfx || s.kind == ServiceKind::music;
    const bool by_search = s.kind == ServiceKind::voice_search;
    for (const auto& m : s.models) {
      models[s.key].push_back(m.model_id);
      EXPECT_GT(m.capacity, 0);
      EXPECT_GE(m.price_per_1k_minor, 30);
      EXPECT_LE(m.price_per_1k_minor, by_search ? 50000 : by_seconds ? 5000 : 300);
    }
    const CapacityUnit unit = by_search                ? CapacityUnit::searches
                              : by_seconds             ? CapacityUnit::seconds
                              : s.key == "provider_d" ? CapacityUnit::utf8_bytes
                                                      : CapacityUnit::chars;
    EXPECT_EQ(s.capacity_unit, unit) << s.key;
  }
  EXPECT_EQ(models["sfx"], std::vector<std::string>{"sfx-procedural"});
  EXPECT_EQ(models["music"], std::vector<std::string>{"music-composer"});
  EXPECT_EQ(models["voice_search"], std::vector<std::string>{"voice-search"});
  EXPECT_EQ(models["provider_a"],
            (std::vector<std::string>{"a-multilingual-v2", "a-v3", "a-v3-turbo", "a-v4", "a-v4-flash"}));
  EXPECT_EQ(models["provider_b"], std::vector<std::string>{"b-standard"});
  EXPECT_EQ(models["provider_c"], (std::vector<std::string>{"c-one", "c-two", "c-three"}));
  EXPECT_EQ(models["provider_d"], std::vector<std::string>{"d-base"});
  EXPECT_EQ(demo_services().size(), 7u);
}

}  // namespace
}  // namespace mediagen::templates
