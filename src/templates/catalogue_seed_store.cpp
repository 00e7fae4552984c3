// The SQL of the demo catalogue's seeding (see seed.hpp): upserts by natural keys.
#include "mediagen/db/pg.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/templates/service_engine.hpp"

namespace mediagen::templates {

CatalogueSeedReport seed_catalogue(db::Db& db, db::Tx& tx) {
  CatalogueSeedReport report;
  const std::string schema = default_settings_schema_json();
  int service_position = 0;
  for (const auto& s : demo_services()) {
    ++service_position;
    // An operator's is_active stays; the descriptive columns follow the code.
    auto rows = tx.exec_params(
        "INSERT INTO services (key, kind, name, capacity_unit, position, engine, name_ru)"
        " VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''))"
        " ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, name = EXCLUDED.name, name_ru = EXCLUDED.name_ru,"
        " capacity_unit = EXCLUDED.capacity_unit, position = EXCLUDED.position,"
        // An engine the operator chose (`admin service engine`) stays; otherwise the embedded one.
        " engine = CASE WHEN services.engine_by_operator THEN services.engine ELSE EXCLUDED.engine END,"
        " updated_at = now()"
        " RETURNING id",
        s.key, std::string(to_string(s.kind)), s.name, std::string(to_string(s.capacity_unit)), service_position,
        std::string(embedded_engine(s.kind)), std::string(russian_service_name(s.key)));
    db.count();
    const auto service_id = rows[0][0].as<std::int64_t>();
    CatalogueSeedReport::Service item{s.key, std::string(to_string(s.kind)), {}};
    int model_position = 0;
    for (const auto& m : s.models) {
      ++model_position;
      std::optional<std::string> languages;
      if (!m.languages.empty()) languages = db::text_array(m.languages);
      // Price, capacity and is_active of an existing model are the operator's: kept.
      tx.exec_params(
          "INSERT INTO service_models (service_id, model_id, name, generation, capacity, capacity_unit,"
          " price_per_1k_minor, settings_honoured, settings_basic, settings_schema, languages, position)"
          " VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9::text[], $10::jsonb, $11::text[], $12)"
          " ON CONFLICT (service_id, model_id) DO UPDATE SET name = EXCLUDED.name,"
          " generation = EXCLUDED.generation, capacity_unit = EXCLUDED.capacity_unit,"
          " settings_honoured = EXCLUDED.settings_honoured, settings_basic = EXCLUDED.settings_basic,"
          " settings_schema = EXCLUDED.settings_schema, languages = EXCLUDED.languages,"
          " position = EXCLUDED.position, updated_at = now()",
          service_id, m.model_id, m.name, m.generation, m.capacity, std::string(to_string(s.capacity_unit)),
          m.price_per_1k_minor, db::text_array(all_settings()), db::text_array(basic_settings(s.key, m.generation)), schema,
          languages, model_position);
      db.count();
      item.models.push_back(m.model_id);
    }
    if (s.kind == ServiceKind::tts) {
      tx.exec_params(
          "INSERT INTO service_modes (service_id, mode, name, position) VALUES ($1, 'mode_v1', 'Standard', 1)"
          " ON CONFLICT (service_id, mode) DO UPDATE SET name = EXCLUDED.name, position = EXCLUDED.position",
          service_id);
      db.count();
    }
    report.services.push_back(std::move(item));
  }
  for (const auto& l : demo_languages()) {
    tx.exec_params(
        "INSERT INTO languages (code, name_en, name_ru) VALUES ($1, $2, $3)"
        " ON CONFLICT (code) DO UPDATE SET name_en = EXCLUDED.name_en, name_ru = EXCLUDED.name_ru",
        std::string(l.code), std::string(l.en), std::string(l.ru));
    db.count();
    ++report.languages;
  }
  return report;
}

}  // namespace mediagen::templates
