#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "mediagen/engines/speech.hpp"
#include "mediagen/voices/catalogue_builder.hpp"

namespace mediagen::voices {
namespace {

std::vector<SourceVoice> fixture_voices() {
  return {
      {"gmw/en-US", "en-us", "English (America)", "male"}, {"gmw/en", "en-gb", "English (Great Britain)", "male"},
      {"zle/ru", "ru", "Russian", "male"},                 {"gmw/de", "de", "German", "male"},
      {"roa/fr", "fr-fr", "French (France)", "male"},      {"sit/cmn", "cmn", "Chinese (Mandarin)", "male"},
      {"zle/uk", "uk", "Ukrainian", "male"},               {"art/eo", "eo", "Esperanto", ""},
  };
}

std::vector<SourceVariant> fixture_variants() {
  return {
      {"Alicia", "Alicia", "female", 0},   {"f1", "female1", "female", 70},   {"f2", "female2", "female", 0},
      {"f3", "female3", "female", 0},      {"f4", "female4", "female", 0},    {"Andrea", "Andrea", "female", 0},
      {"m1", "male1", "male", 70},         {"m2", "male2", "male", 0},        {"m3", "male3", "male", 0},
      {"Diogo", "Diogo", "male", 25},      {"Mr serious", "Mr_Serious", "male", 0}, {"anxiousAndy", "anxiousAndy", "male", 0},
      {"klatt", "klatt", "male", 0},       {"robosoft", "Robosoft", "male", 0}, {"Demonic", "Demonic", "male", 0},
      {"fast", "fast_test", "male", 0},    {"whisperf", "female_whisper", "female", 0},
      {"announcer", "Half-LifeAnnouncementSystem", "male", 0},
  };
}

std::map<std::string, std::vector<VoiceSeed>> by_service(const std::vector<VoiceSeed>& all) {
  std::map<std::string, std::vector<VoiceSeed>> out;
  for (const auto& v : all) out[v.service].push_back(v);
  return out;
}

TEST(VoiceCatalogueBuilder, GivesEveryServiceIdsInItsFormat) {
  const auto all = build_catalogue(fixture_voices(), fixture_variants());
  const auto services = by_service(all);
  ASSERT_EQ(services.size(), 4u);
  const std::map<std::string, std::regex> formats{
      {"provider_a", std::regex("^[A-Za-z0-9]{20}$")},
      {"provider_b", std::regex("^[a-z0-9]+(-[a-z0-9]+)*$")},
      {"provider_c", std::regex("^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")},
      {"provider_d", std::regex("^[0-9a-f]{32}$")},
  };
  const std::regex uuid("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$");
  std::set<std::string> lumvoice_ids;
  for (const auto& [service, voices] : services) {
    std::set<std::string> ids;
    for (const auto& v : voices) {
      EXPECT_TRUE(std::regex_match(v.voice_id, formats.at(service))) << service << " " << v.voice_id;
      EXPECT_TRUE(ids.insert(v.voice_id).second) << "duplicate " << v.voice_id;
      EXPECT_TRUE(std::regex_match(v.id, uuid)) << v.id;
      EXPECT_TRUE(lumvoice_ids.insert(v.id).second) << "duplicate LumVoice id " << v.id;
      EXPECT_EQ(v.id, lumvoice_id(service, v.voice_id));
      EXPECT_EQ(v.preview_path, "voices/" + service + "/" + v.voice_id + ".mp3");
      EXPECT_FALSE(v.name.empty());
      EXPECT_TRUE(v.gender == "male" || v.gender == "female" || v.gender == "neutral") << v.gender;
      EXPECT_NE(v.espeak_variant, "fast") << "the espeak-ng test variant is not a catalogue voice";
    }
  }
}

TEST(VoiceCatalogueBuilder, IsDeterministicWhateverTheInputOrder) {
  const auto first = build_catalogue(fixture_voices(), fixture_variants());
  auto voices = fixture_voices();
  auto variants = fixture_variants();
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(voices.begin(), voices.end(), rng);
    std::shuffle(variants.begin(), variants.end(), rng);
    const auto again = build_catalogue(voices, variants);
    ASSERT_EQ(again.size(), first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(again[i].id, first[i].id);
      EXPECT_EQ(again[i].voice_id, first[i].voice_id);
      EXPECT_EQ(again[i].espeak_variant, first[i].espeak_variant);
      EXPECT_EQ(again[i].tags, first[i].tags);
    }
  }
}

TEST(VoiceCatalogueBuilder, ProviderACoversEveryLanguageWithSixEverydayAndOneNoveltyVoice) {
  const auto services = by_service(build_catalogue(fixture_voices(), fixture_variants()));
  std::map<std::string, std::vector<VoiceSeed>> per_voice;
  for (const auto& v : services.at("provider_a")) per_voice[v.espeak_voice].push_back(v);
  EXPECT_EQ(per_voice.size(), fixture_voices().size());
  for (const auto& [voice, list] : per_voice) {
    ASSERT_EQ(list.size(), 7u) << voice;
    const auto female = std::count_if(list.begin(), list.end(), [](const auto& v) { return v.gender == "female"; });
    const auto hidden = std::count_if(list.begin(), list.end(), [](const auto& v) { return !v.is_public; });
    EXPECT_EQ(female, 3) << voice;
    EXPECT_EQ(hidden, 1) << voice << ": one robotic or character voice, not in the public gallery";
    for (const auto& v : list) {
      EXPECT_NE(std::find(v.tags.begin(), v.tags.end(), "multilingual"), v.tags.end());
    }
  }
}

TEST(VoiceCatalogueBuilder, ProviderBHasReadableIdsForTheMajorLanguagesOnly) {
  const auto services = by_service(build_catalogue(fixture_voices(), fixture_variants()));
  std::set<std::string> locales, ids;
  for (const auto& v : services.at("provider_b")) {
    locales.insert(v.locale);
    ids.insert(v.voice_id);
    EXPECT_TRUE(v.voice_id.starts_with(v.locale + "-")) << v.voice_id;
    EXPECT_TRUE(v.is_public);
  }
  EXPECT_EQ(locales, (std::set<std::string>{"de", "en-gb", "en-us", "fr-fr", "ru", "uk"}));
  for (const char* id : {"en-us-alicia", "en-us-female-1", "ru-mr-serious", "de-anxious-andy", "en-gb-female-whisper"}) {
    EXPECT_TRUE(ids.contains(id)) << id;
  }
  EXPECT_FALSE(ids.contains("en-us-klatt"));
  EXPECT_FALSE(ids.contains("eo-alicia"));
}

TEST(VoiceCatalogueBuilder, TagsFollowGenderAgeAndKind) {
  const auto all = build_catalogue(fixture_voices(), fixture_variants());
  auto tags_of = [&](std::string_view service, std::string_view voice, std::string_view variant) {
    for (const auto& v : all) {
      if (v.service == service && v.espeak_voice == voice && v.espeak_variant == variant) return v.tags;
    }
    return std::vector<std::string>{"<missing>"};
  };
  auto has = [](const std::vector<std::string>& tags, std::string_view t) {
    return std::find(tags.begin(), tags.end(), t) != tags.end();
  };
  const auto f1 = tags_of("provider_b", "gmw/en-US", "f1");
  EXPECT_TRUE(has(f1, "female"));
  EXPECT_TRUE(has(f1, "old"));
  const auto diogo = tags_of("provider_b", "gmw/en-US", "Diogo");
  EXPECT_TRUE(has(diogo, "male"));
  EXPECT_TRUE(has(diogo, "young"));
  const auto whisper = tags_of("provider_b", "gmw/en-US", "whisperf");
  EXPECT_TRUE(has(whisper, "whisper"));
  std::set<std::string> vocabulary;
  for (const auto& t : tag_vocabulary()) vocabulary.insert(std::string(t.code));
  for (const auto& v : all) {
    for (const auto& t : v.tags) EXPECT_TRUE(vocabulary.contains(t)) << t;
  }
}

TEST(VoiceCatalogueBuilder, NamesAndSlugs) {
  EXPECT_EQ(display_name("female2"), "Female 2");
  EXPECT_EQ(display_name("Mr_Serious"), "Mr Serious");
  EXPECT_EQ(display_name("anxiousAndy"), "Anxious Andy");
  EXPECT_EQ(display_name("Half-LifeAnnouncementSystem"), "Half-Life Announcement System");
  EXPECT_EQ(display_name("Alicia"), "Alicia");
  EXPECT_EQ(slug("Mr Serious"), "mr-serious");
  EXPECT_EQ(slug("Half-Life  Announcement"), "half-life-announcement");
  EXPECT_EQ(slug("en-US"), "en-us");
  EXPECT_EQ(primary_language("en-us"), "en");
  EXPECT_EQ(primary_language("cmn-latn-pinyin"), "cmn");
  EXPECT_EQ(primary_language("ru"), "ru");
  EXPECT_EQ(alphanumeric_id("x", 20), alphanumeric_id("x", 20));
  EXPECT_NE(alphanumeric_id("x", 20), alphanumeric_id("y", 20));
  EXPECT_EQ(alphanumeric_id("x", 70).size(), 70u);
  EXPECT_EQ(hex32_from("x").size(), 32u);
  EXPECT_NE(uuid_from("x"), uuid_from("y"));
}

TEST(VoiceCatalogueBuilder, BuildsFromTheInstalledSynthesiserVoices) {
  std::vector<SourceVoice> voices;
  for (const auto& v : engines::list_espeak_voices()) {
    if (v.languages.empty()) continue;
    voices.push_back({v.identifier, v.languages.front().tag, v.name, std::string(engines::to_string(v.gender))});
  }
  std::vector<SourceVariant> variants;
  for (const auto& v : engines::list_espeak_variants()) {
    variants.push_back({v.key, v.name, std::string(engines::to_string(v.gender)), v.age});
  }
  ASSERT_GT(voices.size(), 50u);
  ASSERT_GT(variants.size(), 20u);
  const auto services = by_service(build_catalogue(voices, variants));
  ASSERT_EQ(services.size(), 4u);
  EXPECT_EQ(services.at("provider_a").size(), 7 * voices.size());
  EXPECT_GT(services.at("provider_b").size(), 500u);
  EXPECT_GT(services.at("provider_c").size(), 40u);
  EXPECT_GT(services.at("provider_d").size(), 30u);
  bool russian_d = false;
  for (const auto& v : services.at("provider_d")) russian_d = russian_d || v.language == "ru";
  EXPECT_TRUE(russian_d) << "provider_d counts UTF-8 bytes: it needs Cyrillic voices";
}

}  // namespace
}  // namespace mediagen::voices
