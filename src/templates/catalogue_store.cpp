// SQL of the service catalogue: one statement loads a service with its models, modes and the
// languages its voices speak (nested as JSON, so a service costs one round trip).
#include <nlohmann/json.hpp>

#include "mediagen/db/pg.hpp"
#include "mediagen/templates/catalogue.hpp"
#include "mediagen/templates/service_cache.hpp"

namespace mediagen::templates {
namespace {

#define MG_SERVICE_COLUMNS                                                                                    \
  "s.id, s.key, s.kind, s.name, s.capacity_unit, s.is_active,"                                                \
  " COALESCE((SELECT json_agg(json_build_object('id', m.id, 'model_id', m.model_id, 'name', m.name,"         \
  "   'generation', m.generation, 'capacity', m.capacity, 'capacity_unit', m.capacity_unit,"                  \
  "   'price', m.price_per_1k_minor, 'honoured', m.settings_honoured, 'basic', m.settings_basic,"            \
  "   'schema', m.settings_schema, 'languages', m.languages, 'active', m.is_active)"                          \
  "   ORDER BY m.position, m.id) FROM service_models m WHERE m.service_id = s.id), '[]')::text,"              \
  " COALESCE((SELECT json_agg(json_build_object('mode', d.mode, 'name', d.name, 'active', d.is_active)"       \
  "   ORDER BY d.position, d.mode) FROM service_modes d WHERE d.service_id = s.id), '[]')::text,"             \
  " COALESCE((SELECT json_agg(x.language ORDER BY x.language) FROM (SELECT DISTINCT v.language FROM voices v" \
  "   WHERE v.service_id = s.id AND v.is_active AND v.language ~ '^[a-z]{2}$') x), '[]')::text,"              \
  " s.engine, COALESCE(s.upstream::text, '')"

// With the catalogue version (service_cache.hpp) in the same snapshot as the service.
const db::Statement kServiceByKey{"catalogue_service_by_key",
                                  "SELECT " MG_SERVICE_COLUMNS ", (SELECT counter FROM service_catalogue_version)"
                                  " FROM services s WHERE s.key = $1"};
const db::Statement kServices{"catalogue_services",
                              "SELECT " MG_SERVICE_COLUMNS " FROM services s"
                              " WHERE s.is_active AND (NOT $1 OR s.kind = 'tts') ORDER BY s.position, s.id"};
const db::Statement kVoice{"catalogue_voice",
                           "SELECT id::text, voice_id, name, language, espeak_voice, espeak_variant, '',"
                           " COALESCE(upstream_voice_id, voice_id), (SELECT counter FROM service_catalogue_version)"
                           " FROM voices WHERE service_id = $1 AND voice_id = $2 AND is_active"};
// The profile's base voice stands in for the catalogue voice; clones have no language column
// (the base voice's language is spoken unless the template names one).
const db::Statement kCloneVoice{
    "catalogue_clone_voice",
    "SELECT c.id::text, c.voice_id, c.name, '', c.profile->>'voice', c.profile->>'variant', c.profile::text,"
    " c.voice_id"
    " FROM voice_clones c JOIN services s ON s.key = c.service_key"
    " WHERE s.id = $1 AND c.voice_id = $2 AND c.user_id = $3 AND c.status = 'ready' AND c.profile IS NOT NULL"};
const db::Statement kLanguages{"catalogue_languages",
                               "SELECT code, CASE WHEN $1 = 'ru' THEN name_ru ELSE name_en END FROM languages"
                               " ORDER BY code"};

// Settings in display order; keys outside the four known ones cannot reach an engine and are skipped.
constexpr std::string_view kSettingOrder[] = {kStability, kSimilarityBoost, kUseSpeakerBoost, kSpeed};

std::vector<std::string> strings(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<SettingSpec> parse_schema(const nlohmann::json& schema) {
  std::vector<SettingSpec> out;
  if (!schema.is_object()) return out;
  for (std::string_view key : kSettingOrder) {
    auto it = schema.find(std::string(key));
    if (it == schema.end() || !it->is_object()) continue;
    SettingSpec spec;
    spec.key = std::string(key);
    spec.type = it->value("type", std::string("number")) == "boolean" ? SettingType::boolean : SettingType::number;
    if (spec.type == SettingType::number) {
      spec.min = it->value("min", 0.0);
      spec.max = it->value("max", 0.0);
      spec.default_number = it->value("default", spec.min);
    } else {
      spec.default_bool = it->value("default", false);
    }
    out.push_back(std::move(spec));
  }
  return out;
}

ServiceCatalogue catalogue_from_row(const pqxx::row& r) {
  ServiceCatalogue c;
  c.service.id = r[0].as<std::int64_t>();
  c.service.key = r[1].as<std::string>();
  c.service.kind = parse_service_kind(r[2].as<std::string>()).value_or(ServiceKind::tts);
  c.service.name = r[3].as<std::string>();
  c.service.capacity_unit = capacity_unit_from_string(r[4].as<std::string>()).value_or(CapacityUnit::chars);
  c.service.active = r[5].as<bool>();
  for (const auto& m : nlohmann::json::parse(r[6].as<std::string>())) {
    Model model;
    model.id = m.at("id").get<std::int64_t>();
    model.service_key = c.service.key;
    model.model_id = m.at("model_id").get<std::string>();
    model.name = m.at("name").get<std::string>();
    model.generation = m.at("generation").get<int>();
    model.capacity = m.at("capacity").get<std::int64_t>();
    model.capacity_unit = capacity_unit_from_string(m.at("capacity_unit").get<std::string>()).value_or(CapacityUnit::chars);
    model.price_per_1k_minor = m.at("price").get<std::int64_t>();
    model.settings_honoured = strings(m.at("honoured"));
    model.settings_basic = strings(m.at("basic"));
    model.settings_schema = parse_schema(m.at("schema"));
    if (const auto& l = m.at("languages"); l.is_array()) model.languages = strings(l);
    model.active = m.at("active").get<bool>();
    c.models.push_back(std::move(model));
  }
  for (const auto& d : nlohmann::json::parse(r[7].as<std::string>())) {
    c.modes.push_back({d.at("mode").get<std::string>(), d.at("name").get<std::string>(), d.at("active").get<bool>()});
  }
  c.voice_languages = strings(nlohmann::json::parse(r[8].as<std::string>()));
  c.service.engine = r[9].as<std::string>();
  if (is_upstream_engine(c.service.engine)) c.service.upstream = upstream_from_json(r[10].as<std::string>());
  if (r.size() > 11) c.version = r[11].as<std::int64_t>();
  return c;
}

}  // namespace

std::optional<ServiceCatalogue> load_service(db::Db& db, db::Tx& tx, std::string_view key, ServiceCacheView kept) {
  if (kept.cache) {
    if (auto hit = kept.cache->find(key, kept.version)) return *hit;
  }
  auto rows = db.exec(tx, kServiceByKey, std::string(key));
  if (rows.empty()) return std::nullopt;
  auto service = catalogue_from_row(rows[0]);
  if (kept.cache) kept.cache->keep(service);
  return service;
}

std::vector<ServiceCatalogue> load_services(db::Db& db, db::Tx& tx, bool voice_services_only) {
  std::vector<ServiceCatalogue> out;
  for (const auto& row : db.exec(tx, kServices, voice_services_only)) out.push_back(catalogue_from_row(row));
  return out;
}

namespace {

CatalogueVoice voice_from_row(const pqxx::row& r) {
  return {r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(), r[3].as<std::string>(),
          r[4].as<std::string>(), r[5].as<std::string>(), r[7].as<std::string>(), r[6].as<std::string>()};
}

}  // namespace

std::optional<CatalogueVoice> find_voice(db::Db& db, db::Tx& tx, std::int64_t service_id,
                                         std::string_view voice_id, std::optional<UserId> owner,
                                         ServiceCacheView kept) {
  if (kept.cache) {
    if (auto hit = kept.cache->find_voice(service_id, voice_id, kept.version)) return *hit;
  }
  auto rows = db.exec(tx, kVoice, service_id, std::string(voice_id));
  if (!rows.empty()) {
    CatalogueVoice voice = voice_from_row(rows[0]);
    if (kept.cache) kept.cache->keep_voice(service_id, voice, rows[0][8].as<std::int64_t>());
    return voice;
  }
  if (!owner) return std::nullopt;
  rows = db.exec(tx, kCloneVoice, service_id, std::string(voice_id), owner->value);
  if (rows.empty()) return std::nullopt;
  return voice_from_row(rows[0]);
}

std::vector<LanguageName> language_names(db::Db& db, db::Tx& tx, Locale locale) {
  std::vector<LanguageName> out;
  for (const auto& r : db.exec(tx, kLanguages, std::string(locale_code(locale)))) {
    out.push_back({r[0].as<std::string>(), r[1].as<std::string>()});
  }
  return out;
}

std::optional<ServiceCatalogue> find_service(db::Db& db, std::string_view key) {
  return db::read(db, [&](db::Tx& tx) { return load_service(db, tx, key); });
}

}  // namespace mediagen::templates
