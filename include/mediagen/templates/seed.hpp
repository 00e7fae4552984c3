#pragma once
// The demo service catalogue `mediagen admin seed-demo` writes: services, models (generation,
// capacity and unit, price, honoured settings, settings schema, languages), speech modes and
// the language names. Idempotent: rows are upserted by their natural keys. Prices, capacities
// and active flags of rows that already exist are left alone, since they are the operator's
// data once seeded.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mediagen/db/db.hpp"
#include "mediagen/templates/catalogue.hpp"

namespace mediagen::templates {

struct SeedModel {
  std::string model_id;
  std::string name;
  int generation = 1;
  std::int64_t capacity = 0;
  std::int64_t price_per_1k_minor = 0;
  std::vector<std::string> languages;  // empty: every language of the service's voices
};

struct SeedService {
  std::string key;
  ServiceKind kind = ServiceKind::tts;
  std::string name;
  CapacityUnit capacity_unit = CapacityUnit::chars;
  std::vector<SeedModel> models;
};

// The demo catalogue as data.
const std::vector<SeedService>& demo_services();
// A demo service's name in Russian (GET /usage names services in the caller's locale).
std::string_view russian_service_name(std::string_view key);

struct LanguageRow {
  const char* code;
  const char* en;
  const char* ru;
};
// Names of the languages the speech voices speak (primary subtags), plus zh.
std::span<const LanguageRow> demo_languages();

// The settings a model honours without advanced_voice_settings (spec section 1): third-
// generation provider_a models only stability, fourth-generation stability and
// similarity_boost; every other model all four (the flag has no effect there).
std::vector<std::string> basic_settings(std::string_view service_key, int generation);
std::vector<std::string> all_settings();
// The voice-settings schema every demo model carries, as JSON text.
std::string default_settings_schema_json();

struct CatalogueSeedReport {
  struct Service {
    std::string key;
    std::string kind;
    std::vector<std::string> models;
  };
  std::vector<Service> services;
  std::int64_t languages = 0;
};

CatalogueSeedReport seed_catalogue(db::Db& db, db::Tx& tx);

}  // namespace mediagen::templates
