// The voice catalogues on real PostgreSQL: seeding from the installed synthesiser voices,
// stable ids across seeds, filters, paging and the reference lists.
#include <gtest/gtest.h>

#include <set>

#include "mediagen/db/pg.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/voices/voices.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

std::vector<voices::VoiceSeed> installed_catalogue() {
  std::vector<voices::SourceVoice> voices;
  for (const auto& v : engines::list_espeak_voices()) {
    if (v.languages.empty()) continue;
    voices.push_back({v.identifier, v.languages.front().tag, v.name, std::string(engines::to_string(v.gender))});
  }
  std::vector<voices::SourceVariant> variants;
  for (const auto& v : engines::list_espeak_variants()) {
    variants.push_back({v.key, v.name, std::string(engines::to_string(v.gender)), v.age});
  }
  return voices::build_catalogue(voices, variants);
}

class VoicesCatalogueTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    catalogue = installed_catalogue();
    report = seed(catalogue);
  }
  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  voices::VoiceSeedReport seed(const std::vector<voices::VoiceSeed>& seeds) {
    return db::transact(*db, [&](db::Tx& tx) {
      templates::seed_catalogue(*db, tx);
      return voices::seed_voices(*db, tx, seeds);
    });
  }

  std::int64_t count_of(const std::string& service) const {
    return std::count_if(catalogue.begin(), catalogue.end(), [&](const auto& v) { return v.service == service; });
  }

  std::string sql(const std::string& statement) { return query_value(db_url, statement); }

  std::optional<db::Db> db;
  std::vector<voices::VoiceSeed> catalogue;
  voices::VoiceSeedReport report;
};

TEST_F(VoicesCatalogueTest, SeedsEveryServicesVoicesWithTheTagVocabulary) {
  ASSERT_EQ(report.voices.size(), 4u);
  for (const auto& [service, count] : report.voices) EXPECT_EQ(count, count_of(service)) << service;
  EXPECT_EQ(report.tags, static_cast<std::int64_t>(voices::tag_vocabulary().size()));
  EXPECT_EQ(report.deactivated, 0);
  EXPECT_EQ(sql("SELECT count(*) FROM voices WHERE preview_path <> 'voices/' || (SELECT key FROM services s"
                " WHERE s.id = service_id) || '/' || voice_id || '.mp3'"),
            "0");
}

TEST_F(VoicesCatalogueTest, KeepsIdsAcrossSeedsAndDeactivatesVoicesThatAreGone) {
  const std::string before = sql("SELECT md5(string_agg(id::text || voice_id, ',' ORDER BY id)) FROM voices");
  auto smaller = catalogue;
  const auto gone = smaller.back();
  smaller.pop_back();
  auto second = seed(smaller);
  EXPECT_EQ(second.deactivated, 1);
  EXPECT_FALSE(voices::find_voice_by_id(*db, VoiceId::parse(gone.id).value()));
  auto third = seed(catalogue);
  EXPECT_EQ(third.deactivated, 0);
  EXPECT_TRUE(voices::find_voice_by_id(*db, VoiceId::parse(gone.id).value())) << "the same voice comes back with the same id";
  EXPECT_EQ(sql("SELECT md5(string_agg(id::text || voice_id, ',' ORDER BY id)) FROM voices"), before);
  EXPECT_THROW(seed({}), std::invalid_argument);
}

TEST_F(VoicesCatalogueTest, FindsAVoiceByItsGlobalId) {
  const auto& seedv = catalogue.front();
  auto v = voices::find_voice_by_id(*db, VoiceId::parse(seedv.id).value());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->voice_id, seedv.voice_id);
  EXPECT_EQ(v->service, seedv.service);
  EXPECT_EQ(v->tags, seedv.tags);
  EXPECT_EQ(v->preview_path, seedv.preview_path);
  // Malformed ids are refused where the path is parsed (http::path_id): 404 like a missing voice.
  for (const char* bad : {"", "nope", "1234"}) EXPECT_FALSE(VoiceId::parse(bad)) << bad;
  EXPECT_FALSE(voices::find_voice_by_id(*db, VoiceId::parse("00000000-0000-0000-0000-000000000000").value()));
  sql("UPDATE services SET is_active = false WHERE key = '" + seedv.service + "'");
  EXPECT_FALSE(voices::find_voice_by_id(*db, VoiceId::parse(seedv.id).value())) << "a closed service's voices are not listed";
}

TEST_F(VoicesCatalogueTest, PagesWithoutGapsOrOverlaps) {
  voices::VoiceFilter f;
  f.service = "provider_c";
  std::set<std::string> seen;
  std::int64_t total = -1;
  for (std::int64_t offset = 0;; offset += 7) {
    auto slice = voices::find_voices(*db, f, offset, 7);
    total = slice.total;
    if (slice.items.empty()) break;
    for (const auto& v : slice.items) {
      EXPECT_EQ(v.service, "provider_c");
      EXPECT_TRUE(seen.insert(v.voice_id).second) << v.voice_id;
    }
  }
  EXPECT_EQ(total, count_of("provider_c"));
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), total);
  auto beyond = voices::find_voices(*db, f, INT64_MAX, 100);
  EXPECT_TRUE(beyond.items.empty());
  EXPECT_EQ(beyond.total, total);
}

TEST_F(VoicesCatalogueTest, FiltersByLanguageGenderTagSearchAndPublicFlag) {
  voices::VoiceFilter f;
  f.service = "provider_b";
  f.language = "ru";
  f.gender = "female";
  auto slice = voices::find_voices(*db, f, 0, 200);
  ASSERT_GT(slice.total, 0);
  for (const auto& v : slice.items) {
    EXPECT_EQ(v.language, "ru");
    EXPECT_EQ(v.gender, "female");
  }

  voices::VoiceFilter tag;
  tag.tag = "robotic";
  auto robots = voices::find_voices(*db, tag, 0, 100);
  ASSERT_GT(robots.total, 0);
  for (const auto& v : robots.items) EXPECT_FALSE(v.is_public);
  tag.public_only = true;
  EXPECT_EQ(voices::find_voices(*db, tag, 0, 100).total, 0);

  voices::VoiceFilter search;
  search.search = "aLiCiA";
  auto alicia = voices::find_voices(*db, search, 0, 100);
  ASSERT_GT(alicia.total, 0);
  for (const auto& v : alicia.items) EXPECT_EQ(v.name, "Alicia");

  voices::VoiceFilter weird;
  weird.search = std::string("\xff\xfe");
  EXPECT_EQ(voices::find_voices(*db, weird, 0, 10).total, 0) << "invalid UTF-8 matches nothing and fails nothing";
  weird.search = std::string("a\0b", 3);
  EXPECT_EQ(voices::find_voices(*db, weird, 0, 10).total, 0);
  voices::VoiceFilter unknown;
  unknown.service = "provider_z";
  EXPECT_EQ(voices::find_voices(*db, unknown, 0, 10).total, 0);

  voices::VoiceFilter everything;
  EXPECT_EQ(voices::find_voices(*db, everything, 0, 1).total, static_cast<std::int64_t>(catalogue.size()));
}

TEST_F(VoicesCatalogueTest, NamesTagsAndFiltersInTheRequestedLanguage) {
  const auto en = voices::list_tags(*db, Locale::en);
  const auto ru = voices::list_tags(*db, Locale::ru);
  ASSERT_EQ(en.size(), voices::tag_vocabulary().size());
  ASSERT_EQ(ru.size(), en.size());
  EXPECT_EQ(en[0].code, "female");
  EXPECT_EQ(en[0].name, "Female");
  EXPECT_EQ(ru[0].name, "Женский");

  const auto filters = voices::list_filters(*db, "provider_b", Locale::ru);
  std::int64_t by_language = 0, by_gender = 0;
  bool russian = false;
  for (const auto& f : filters) {
    if (f.type == "language") by_language += f.count;
    if (f.type == "gender") by_gender += f.count;
    russian = russian || (f.type == "language" && f.value == "ru" && f.name == "Русский");
  }
  EXPECT_EQ(by_language, count_of("provider_b"));
  EXPECT_EQ(by_gender, count_of("provider_b"));
  EXPECT_TRUE(russian);
}

}  // namespace
}  // namespace mediagen::test
