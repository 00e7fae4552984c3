// Templates and the service catalogue on real PostgreSQL: seeding, ownership, merge-patch
// updates, soft deletion, paging and the check of stored templates against the current catalogue.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mediagen/account/users.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/voices/voices.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

// A template id as the routes parse it from a path; these tests name well-formed ones.
TemplateId tid(const std::string& text) { return TemplateId::parse(text).value(); }

using json = nlohmann::json;

std::vector<voices::SourceVoice> small_voices() {
  return {{"gmw/en-US", "en-us", "English (America)", "male"},
          {"zle/ru", "ru", "Russian", "male"},
          {"gmw/de", "de", "German", "male"}};
}

std::vector<voices::SourceVariant> small_variants() {
  return {{"Alicia", "Alicia", "female", 0}, {"f2", "female2", "female", 0}, {"f3", "female3", "female", 0},
          {"m2", "male2", "male", 0},        {"m3", "male3", "male", 0},    {"m4", "male4", "male", 0},
          {"klatt", "klatt", "male", 0}};
}

class TemplatesServiceTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    catalogue = voices::build_catalogue(small_voices(), small_variants());
    seed();
    alice = account::create_user(*db, {"alice@example.com", "Alice", Locale::en, {}}).id;
    bob = account::create_user(*db, {"bob@example.com", "Bob", Locale::ru, {}}).id;
  }
  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  void seed() {
    db::transact(*db, [&](db::Tx& tx) {
      templates::seed_catalogue(*db, tx);
      voices::seed_voices(*db, tx, catalogue);
    });
  }

  std::string voice_of(const std::string& service, const std::string& locale = "en-us") {
    for (const auto& v : catalogue) {
      if (v.service == service && v.locale == locale) return v.voice_id;
    }
    return "<none>";
  }

  json body(const std::string& service, const std::string& model, const std::string& name = "Narrator") {
    return {{"service_key", service},
            {"name", name},
            {"config", {{"tts_settings", {{"mode", "mode_v1"}, {"model_id", model}, {"voice_id", voice_of(service)}}}}}};
  }

  std::string sql(const std::string& statement) { return query_value(db_url, statement); }

  std::optional<db::Db> db;
  std::vector<voices::VoiceSeed> catalogue;
  UserId alice, bob;
};

TEST_F(TemplatesServiceTest, SeedsTheCatalogueOnceHoweverOftenItRuns) {
  EXPECT_EQ(sql("SELECT count(*) FROM services"), "7");
  EXPECT_EQ(sql("SELECT count(*) FROM service_models"), "13");
  EXPECT_EQ(sql("SELECT count(*) FROM service_modes WHERE mode = 'mode_v1'"), "4");
  const std::string voices_before = sql("SELECT count(*) FROM voices");
  const std::string ids_before = sql("SELECT string_agg(id::text, ',' ORDER BY id) FROM voices");
  seed();
  seed();
  EXPECT_EQ(sql("SELECT count(*) FROM services"), "7");
  EXPECT_EQ(sql("SELECT count(*) FROM service_models"), "13");
  EXPECT_EQ(sql("SELECT count(*) FROM voices"), voices_before);
  EXPECT_EQ(sql("SELECT string_agg(id::text, ',' ORDER BY id) FROM voices"), ids_before);
  EXPECT_EQ(sql("SELECT capacity_unit || ':' || capacity FROM service_models WHERE model_id = 'd-base'"),
            "utf8_bytes:4000");
  EXPECT_EQ(sql("SELECT array_to_string(settings_basic, ',') FROM service_models WHERE model_id = 'a-v4'"),
            "stability,similarity_boost");
  // Sound effects and music run on their own engines, billed by the second.
  EXPECT_EQ(sql("SELECT string_agg(key || ':' || engine || ':' || capacity_unit, ',' ORDER BY key) FROM services"
                " WHERE kind IN ('sfx', 'music')"),
            "music:music:seconds,sfx:sfx:seconds");
  // Voice search: one model, one flat price a search.
  EXPECT_EQ(sql("SELECT m.model_id || ':' || m.capacity_unit || ':' || m.price_per_1k_minor FROM service_models m"
                " JOIN services s ON s.id = m.service_id WHERE s.key = 'voice_search'"),
            "voice-search:searches:50000");
}

TEST_F(TemplatesServiceTest, KeepsTheOperatorsPricesCapacitiesAndFlagsWhenSeedingAgain) {
  sql("UPDATE service_models SET price_per_1k_minor = 999, capacity = 1234, is_active = false, name = 'Renamed'"
      " WHERE model_id = 'a-v3'");
  seed();
  EXPECT_EQ(sql("SELECT price_per_1k_minor || ':' || capacity || ':' || is_active || ':' || name FROM service_models"
                " WHERE model_id = 'a-v3'"),
            "999:1234:false:v3");
}

TEST_F(TemplatesServiceTest, CreatesATemplateForTheAccountWithANormalisedConfig) {
  auto b = body("provider_b", "b-standard");
  b["config"]["tts_settings"]["voice_settings"] = {{"speed", 0.9}};
  auto created = templates::create_template(*db, alice, b);
  ASSERT_TRUE(created) << created.error().fields.size();
  EXPECT_EQ(created->id.size(), 36u);
  EXPECT_EQ(created->user_id, alice);
  EXPECT_EQ(created->service_key, "provider_b");
  const auto config = json::parse(created->config_json);
  EXPECT_EQ(config["tts_settings"]["voice_settings"], json({{"speed", 0.9}}));
  EXPECT_EQ(config["tts_settings"]["advanced_voice_settings"], false);
  EXPECT_TRUE(config["tts_settings"]["language_code"].is_null());

  auto loaded = templates::load_template(*db, alice, tid(created->id));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->name, "Narrator");
  EXPECT_EQ(loaded->created_at, created->created_at);
}

TEST_F(TemplatesServiceTest, RefusesAnotherAccountsTemplateAndHidesMissingOnes) {
  auto created = templates::create_template(*db, alice, body("provider_a", "a-v3"));
  ASSERT_TRUE(created);
  auto denied = templates::load_template(*db, bob, tid(created->id));
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().status, 403);
  EXPECT_EQ(denied.error().reason, Reason::template_access_denied);

  auto upper = templates::load_template(*db, alice, tid([&] {
    std::string s = created->id;
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }()));
  EXPECT_TRUE(upper) << "a uuid in capitals names the same template";

  // Malformed ids are refused where the path is parsed (http::path_id), with the same 404.
  for (const std::string& id : std::vector<std::string>{"not-a-uuid", "", created->id + "0"}) {
    EXPECT_FALSE(TemplateId::parse(id)) << id;
  }
  for (const std::string& id : std::vector<std::string>{"00000000-0000-0000-0000-000000000000"}) {
    auto missing = templates::load_template(*db, alice, tid(id));
    ASSERT_FALSE(missing) << id;
    EXPECT_EQ(missing.error().status, 404) << id;
  }

  auto update = templates::update_template(*db, bob, tid(created->id), json{{"name", "Mine now"}});
  ASSERT_FALSE(update);
  EXPECT_EQ(update.error().reason, Reason::template_access_denied);
  auto removal = templates::delete_template(*db, bob, tid(created->id));
  ASSERT_FALSE(removal);
  EXPECT_EQ(removal.error().reason, Reason::template_access_denied);
  EXPECT_EQ(templates::load_template(*db, alice, tid(created->id))->name, "Narrator");
}

TEST_F(TemplatesServiceTest, UpdatesAsAMergePatchAndValidatesTheResult) {
  auto created = templates::create_template(*db, alice, body("provider_a", "a-v3"));
  ASSERT_TRUE(created);
  const auto original = json::parse(created->config_json);

  auto renamed = templates::update_template(*db, alice, tid(created->id), json{{"name", "Renamed"}});
  ASSERT_TRUE(renamed);
  EXPECT_EQ(renamed->name, "Renamed");
  EXPECT_EQ(json::parse(renamed->config_json), original);
  EXPECT_GE(renamed->updated_at, created->updated_at);

  json patch = {{"config", {{"tts_settings", {{"model_id", "a-v4"}, {"language_code", "ru"},
                                               {"voice_settings", {{"similarity_boost", 0.2}}}}}}}};
  auto merged = templates::update_template(*db, alice, tid(created->id), patch);
  ASSERT_TRUE(merged);
  auto tts = json::parse(merged->config_json)["tts_settings"];
  EXPECT_EQ(tts["model_id"], "a-v4");
  EXPECT_EQ(tts["voice_id"], original["tts_settings"]["voice_id"]);
  EXPECT_EQ(tts["language_code"], "ru");
  EXPECT_EQ(tts["voice_settings"], json({{"similarity_boost", 0.2}}));

  // null removes a key.
  auto cleared = templates::update_template(*db, alice, tid(created->id),
                                            json{{"config", {{"tts_settings", {{"language_code", nullptr}}}}}});
  ASSERT_TRUE(cleared);
  EXPECT_TRUE(json::parse(cleared->config_json)["tts_settings"]["language_code"].is_null());

  // A service change without a model of that service fails as a whole and changes nothing.
  auto refused = templates::update_template(*db, alice, tid(created->id), json{{"service_key", "provider_b"}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().status, 422);
  std::vector<std::string> fields;
  for (const auto& f : refused.error().fields) fields.push_back(f.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"config.tts_settings.model_id", "config.tts_settings.voice_id"}));
  EXPECT_EQ(templates::load_template(*db, alice, tid(created->id))->service_key, "provider_a");

  // The same with a full body: PUT and PATCH are one operation.
  auto moved = templates::update_template(*db, alice, tid(created->id), body("provider_b", "b-standard", "Moved"));
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->service_key, "provider_b");
  EXPECT_EQ(moved->name, "Moved");

  auto not_object = templates::update_template(*db, alice, tid(created->id), json::array());
  ASSERT_FALSE(not_object);
  EXPECT_EQ(not_object.error().fields.at(0).field, "body");
}

TEST_F(TemplatesServiceTest, DeletesSoftly) {
  auto created = templates::create_template(*db, alice, body("provider_c", "c-two"));
  ASSERT_TRUE(created);
  ASSERT_TRUE(templates::delete_template(*db, alice, tid(created->id)));
  EXPECT_EQ(sql("SELECT deleted_at IS NOT NULL FROM templates WHERE id = '" + created->id + "'"), "t");
  EXPECT_EQ(templates::load_template(*db, alice, tid(created->id)).error().status, 404);
  EXPECT_EQ(templates::delete_template(*db, alice, tid(created->id)).error().status, 404);
  EXPECT_EQ(templates::update_template(*db, alice, tid(created->id), json{{"name", "x"}}).error().status, 404);
  // Deleted is 404 for another account too: nothing is revealed about it.
  EXPECT_EQ(templates::load_template(*db, bob, tid(created->id)).error().status, 404);
  EXPECT_TRUE(templates::list_templates(*db, alice).empty());
}

TEST_F(TemplatesServiceTest, ListsAndPagesTheAccountsTemplatesNewestFirst) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    auto t = templates::create_template(*db, alice, body("provider_a", "a-v3", "T" + std::to_string(i)));
    ASSERT_TRUE(t);
    ids.push_back(t->id);
  }
  ASSERT_TRUE(templates::create_template(*db, bob, body("provider_a", "a-v3", "Bob's")));
  const auto all = templates::list_templates(*db, alice);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all.front().name, "T4");
  EXPECT_EQ(all.back().name, "T0");

  std::vector<std::string> paged;
  for (std::int64_t page = 1; page <= 3; ++page) {
    auto p = templates::browse_templates(*db, alice, page, 2);
    EXPECT_EQ(p.total, 5);
    EXPECT_EQ(p.items.size(), page < 3 ? 2u : 1u);
    for (const auto& t : p.items) paged.push_back(t.id);
  }
  std::vector<std::string> listed;
  for (const auto& t : all) listed.push_back(t.id);
  EXPECT_EQ(paged, listed);
  EXPECT_TRUE(templates::browse_templates(*db, alice, 4, 2).items.empty());
  EXPECT_TRUE(templates::browse_templates(*db, alice, INT64_MAX, 100).items.empty());
  EXPECT_EQ(templates::browse_templates(*db, bob, 1, 15).total, 1);
}

TEST_F(TemplatesServiceTest, ResolvesAStoredTemplateForSpeech) {
  auto t = templates::create_template(*db, alice, body("provider_d", "d-base"));
  ASSERT_TRUE(t);
  auto setup = templates::validate_stored(*db, *t);
  ASSERT_TRUE(setup);
  EXPECT_EQ(setup->service.key, "provider_d");
  EXPECT_EQ(setup->model.capacity, 4000);
  EXPECT_EQ(setup->model.capacity_unit, templates::CapacityUnit::utf8_bytes);
  EXPECT_EQ(setup->model.price_per_1k_minor, 70);
  EXPECT_EQ(setup->voice.voice_id, voice_of("provider_d"));
  EXPECT_EQ(setup->voice.espeak_voice, "gmw/en-US");
  EXPECT_FALSE(setup->voice.espeak_variant.empty());
  EXPECT_EQ(setup->effective, (templates::VoiceSettings{0.5, 0.75, 1.0, true}));

  // The flag matters on provider_a's fourth generation.
  auto b = body("provider_a", "a-v4");
  b["config"]["tts_settings"]["voice_settings"] = {{"speed", 1.1}, {"stability", 0.9}};
  auto v4 = templates::create_template(*db, alice, b);
  ASSERT_TRUE(v4);
  auto s4 = templates::validate_stored(*db, *v4);
  ASSERT_TRUE(s4);
  EXPECT_EQ(s4->effective, (templates::VoiceSettings{0.9, 0.75, std::nullopt, std::nullopt}));
}

TEST_F(TemplatesServiceTest, AStoredTemplateOfAFormerCatalogueIsOutdated) {
  auto t = templates::create_template(*db, alice, body("provider_a", "a-v3"));
  ASSERT_TRUE(t);
  ASSERT_TRUE(templates::validate_stored(*db, *t));

  sql("UPDATE service_models SET is_active = false WHERE model_id = 'a-v3'");
  auto outdated = templates::validate_stored(*db, *t);
  ASSERT_FALSE(outdated);
  EXPECT_EQ(outdated.error().status, 422);
  EXPECT_EQ(outdated.error().reason, Reason::template_model_outdated);
  EXPECT_NE(outdated.error().internal.find("config.tts_settings.model_id"), std::string::npos);
  sql("UPDATE service_models SET is_active = true WHERE model_id = 'a-v3'");

  // A narrower bound in the schema, a vanished voice, a closed service: all outdated.
  auto b = body("provider_a", "a-v3");
  b["config"]["tts_settings"]["voice_settings"] = {{"speed", 1.15}};
  auto fast = templates::create_template(*db, alice, b);
  ASSERT_TRUE(fast);
  sql("UPDATE service_models SET settings_schema = jsonb_set(settings_schema, '{speed,max}', '1.1')"
      " WHERE model_id = 'a-v3'");
  EXPECT_EQ(templates::validate_stored(*db, *fast).error().reason, Reason::template_model_outdated);
  EXPECT_TRUE(templates::validate_stored(*db, *t)) << "a template without speed still passes";

  sql("UPDATE voices SET is_active = false WHERE voice_id = '" + voice_of("provider_a") + "'");
  EXPECT_EQ(templates::validate_stored(*db, *t).error().reason, Reason::template_model_outdated);
  sql("UPDATE voices SET is_active = true");
  sql("UPDATE services SET is_active = false WHERE key = 'provider_a'");
  EXPECT_EQ(templates::validate_stored(*db, *t).error().reason, Reason::template_model_outdated);
  EXPECT_EQ(templates::validate_stored(*db, "provider_a", "not json", std::nullopt).error().reason, Reason::template_model_outdated);
}

TEST_F(TemplatesServiceTest, OffersTheActiveCatalogueAsConfigOptions) {
  sql("UPDATE service_models SET is_active = false WHERE model_id = 'c-three'");
  const auto options = json::parse(templates::config_options_json(*db, Locale::ru));
  std::vector<std::string> keys;
  for (const auto& s : options["services"]) keys.push_back(s["key"]);
  EXPECT_EQ(keys, (std::vector<std::string>{"provider_a", "provider_b", "provider_c", "provider_d"}));
  const auto& c = options["services"][2];
  EXPECT_EQ(c["models"].size(), 2u);
  EXPECT_EQ(c["voice_catalogue"], "/voices/provider_c");
  EXPECT_EQ(options["services"][0]["voice_catalogue"], "/voices/provider_a/library");
  const auto& v3 = options["services"][0]["models"][1];
  EXPECT_EQ(v3["model_id"], "a-v3");
  EXPECT_EQ(v3["settings_without_advanced"], json({"stability"}));
  EXPECT_EQ(v3["voice_settings"]["speed"], json({{"type", "number"}, {"min", 0.7}, {"max", 1.2}, {"default", 1.0}}));
  EXPECT_EQ(v3["languages"], json({"de", "en", "ru"}));
  EXPECT_EQ(options["services"][3]["capacity_unit"], "utf8_bytes");
  bool russian = false;
  for (const auto& l : options["languages"]) russian = russian || (l["code"] == "ru" && l["name"] == "Русский");
  EXPECT_TRUE(russian) << options["languages"];
  EXPECT_EQ(options["currency"], json({{"code", "USD"}, {"precision", 2}}));
}

}  // namespace
}  // namespace mediagen::test
