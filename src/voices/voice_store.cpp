// SQL of the voice catalogues.
#include <nlohmann/json.hpp>
#include "mediagen/core/json_text.hpp"
#include <stdexcept>

#include "mediagen/db/pg.hpp"
#include "mediagen/voices/voices.hpp"

#include "mediagen/core/utf8.hpp"

namespace mediagen::voices {
namespace {

#define MG_VOICE_COLUMNS                                                                        \
  "v.id::text, s.key, v.voice_id, v.name, v.language, v.locale, v.accent, v.gender,"           \
  " to_json(v.tags)::text, v.preview_path, v.is_public"

// NULL parameters do not filter. $6 restricts to public voices.
#define MG_VOICE_MATCH                                                                          \
  " FROM voices v JOIN services s ON s.id = v.service_id"                                      \
  " WHERE v.is_active AND s.is_active"                                                          \
  " AND ($1::text IS NULL OR s.key = $1) AND ($2::text IS NULL OR v.language = $2)"             \
  " AND ($3::text IS NULL OR v.gender = $3) AND ($4::text IS NULL OR $4 = ANY (v.tags))"        \
  " AND ($5::text IS NULL OR strpos(lower(v.name), lower($5)) > 0) AND (NOT $6 OR v.is_public)" \
  " AND ($7::text IS NULL OR v.locale = $7)"

const db::Statement kPage{"voices_page",
                          "SELECT " MG_VOICE_COLUMNS MG_VOICE_MATCH
                          " ORDER BY s.position, v.language, v.locale, v.name, v.voice_id LIMIT $8 OFFSET $9"};
const db::Statement kCount{"voices_count", "SELECT count(*)" MG_VOICE_MATCH};
const db::Statement kById{"voices_by_id",
                          "SELECT " MG_VOICE_COLUMNS " FROM voices v JOIN services s ON s.id = v.service_id"
                          " WHERE v.id = $1::uuid AND v.is_active AND s.is_active"};
const db::Statement kByVoiceId{"voices_by_voice_id",
                               "SELECT " MG_VOICE_COLUMNS " FROM voices v JOIN services s ON s.id = v.service_id"
                               " WHERE v.voice_id = $1 AND v.is_active AND s.is_active ORDER BY s.position"};
const db::Statement kTags{"voices_tags",
                          "SELECT code, CASE WHEN $1 = 'ru' THEN name_ru ELSE name_en END FROM voice_tags"
                          " ORDER BY position, code"};
const db::Statement kLanguageFilters{
    "voices_language_filters",
    "SELECT v.language, COALESCE(CASE WHEN $2 = 'ru' THEN l.name_ru ELSE l.name_en END, v.language), count(*)"
    " FROM voices v JOIN services s ON s.id = v.service_id LEFT JOIN languages l ON l.code = v.language"
    " WHERE s.key = $1 AND v.is_active AND s.is_active GROUP BY 1, 2 ORDER BY 1"};
const db::Statement kGenderFilters{
    "voices_gender_filters",
    "SELECT v.gender, COALESCE(CASE WHEN $2 = 'ru' THEN t.name_ru ELSE t.name_en END, v.gender), count(*)"
    " FROM voices v JOIN services s ON s.id = v.service_id LEFT JOIN voice_tags t ON t.code = v.gender"
    " WHERE s.key = $1 AND v.is_active AND s.is_active GROUP BY 1, 2 ORDER BY 1"};

Voice from_row(const pqxx::row& r) {
  Voice v;
  v.id = r[0].as<std::string>();
  v.service = r[1].as<std::string>();
  v.voice_id = r[2].as<std::string>();
  v.name = r[3].as<std::string>();
  v.language = r[4].as<std::string>();
  v.locale = r[5].as<std::string>();
  v.accent = r[6].as<std::string>();
  v.gender = r[7].as<std::string>();
  for (const auto& t : nlohmann::json::parse(r[8].as<std::string>())) v.tags.push_back(t.get<std::string>());
  v.preview_path = r[9].as<std::string>();
  v.is_public = r[10].as<bool>();
  return v;
}

bool usable(const std::optional<std::string>& value) {
  // Text PostgreSQL cannot compare (invalid UTF-8, NUL) matches no voice.
  return !value || (is_valid_utf8(*value) && value->find('\0') == std::string::npos);
}

}  // namespace

VoiceSlice find_voices(db::Db& db, const VoiceFilter& f, std::int64_t offset, std::int64_t limit) {
  VoiceSlice out;
  if (!usable(f.service) || !usable(f.language) || !usable(f.locale) || !usable(f.gender) || !usable(f.tag) ||
      !usable(f.search)) {
    return out;
  }
  return db::transact(db, [&](db::Tx& tx) {
    out.total = db.exec(tx, kCount, f.service, f.language, f.gender, f.tag, f.search, f.public_only, f.locale)[0][0]
                    .as<std::int64_t>();
    if (offset < out.total) {
      auto rows =
          db.exec(tx, kPage, f.service, f.language, f.gender, f.tag, f.search, f.public_only, f.locale, limit, offset);
      for (const auto& r : rows) out.items.push_back(from_row(r));
    }
    return out;
  });
}

std::optional<Voice> find_voice_by_id(db::Db& db, const VoiceId& id) {
  return db::read(db, [&](db::Tx& tx) -> std::optional<Voice> {
    auto rows = db.exec(tx, kById, id.str());
    if (rows.empty()) return std::nullopt;
    return from_row(rows[0]);
  });
}

std::vector<Voice> find_voices_by_voice_id(db::Db& db, std::string_view voice_id) {
  std::vector<Voice> out;
  if (!usable(std::string(voice_id))) return out;
  return db::read(db, [&](db::Tx& tx) {
    for (const auto& r : db.exec(tx, kByVoiceId, std::string(voice_id))) out.push_back(from_row(r));
    return out;
  });
}

std::vector<Tag> list_tags(db::Db& db, Locale locale) {
  return db::read(db, [&](db::Tx& tx) {
    std::vector<Tag> out;
    for (const auto& r : db.exec(tx, kTags, std::string(locale_code(locale)))) {
      out.push_back({r[0].as<std::string>(), r[1].as<std::string>()});
    }
    return out;
  });
}

std::vector<FilterValue> list_filters(db::Db& db, std::string_view service, Locale locale) {
  return db::transact(db, [&](db::Tx& tx) {
    std::vector<FilterValue> out;
    const std::string loc(locale_code(locale));
    for (const auto& r : db.exec(tx, kLanguageFilters, std::string(service), loc)) {
      out.push_back({"language", r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::int64_t>()});
    }
    for (const auto& r : db.exec(tx, kGenderFilters, std::string(service), loc)) {
      out.push_back({"gender", r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::int64_t>()});
    }
    return out;
  });
}

VoiceSeedReport seed_voices(db::Db& db, db::Tx& tx, const std::vector<VoiceSeed>& seeds) {
  if (seeds.empty()) throw std::invalid_argument("no voices to seed: the synthesiser lists no voices");
  VoiceSeedReport report;
  int position = 0;
  for (const auto& t : tag_vocabulary()) {
    tx.exec_params(
        "INSERT INTO voice_tags (code, name_en, name_ru, position) VALUES ($1, $2, $3, $4)"
        " ON CONFLICT (code) DO UPDATE SET name_en = EXCLUDED.name_en, name_ru = EXCLUDED.name_ru,"
        " position = EXCLUDED.position",
        std::string(t.code), std::string(t.name_en), std::string(t.name_ru), ++position);
    db.count();
    ++report.tags;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : seeds) {
    rows.push_back({{"id", s.id},
                    {"service", s.service},
                    {"voice_id", s.voice_id},
                    {"name", s.name},
                    {"language", s.language},
                    {"locale", s.locale},
                    {"accent", s.accent},
                    {"gender", s.gender},
                    {"tags", s.tags},
                    {"espeak_voice", s.espeak_voice},
                    {"espeak_variant", s.espeak_variant},
                    {"preview_path", s.preview_path},
                    {"is_public", s.is_public},
                    {"upstream_voice_id", s.upstream_voice_id}});
  }
  const std::string payload = to_json_text(rows);
  // One statement for the whole catalogue; the LumVoice id is derived from (service, voice_id),
  // so an existing row keeps the same id.
  tx.exec_params(
      "INSERT INTO voices (id, service_id, voice_id, name, language, locale, accent, gender, tags, espeak_voice,"
      " espeak_variant, preview_path, is_public, is_active, upstream_voice_id)"
      " SELECT r.id, s.id, r.voice_id, r.name, r.language, r.locale, r.accent, r.gender, r.tags, r.espeak_voice,"
      " r.espeak_variant, r.preview_path, r.is_public, true, NULLIF(r.upstream_voice_id, '')"
      " FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, service text, voice_id text, name text, language text,"
      " locale text, accent text, gender text, tags text[], espeak_voice text, espeak_variant text,"
      " preview_path text, is_public boolean, upstream_voice_id text)"
      " JOIN services s ON s.key = r.service"
      " ON CONFLICT (service_id, voice_id) DO UPDATE SET name = EXCLUDED.name, language = EXCLUDED.language,"
      " locale = EXCLUDED.locale, accent = EXCLUDED.accent, gender = EXCLUDED.gender, tags = EXCLUDED.tags,"
      " espeak_voice = EXCLUDED.espeak_voice, espeak_variant = EXCLUDED.espeak_variant,"
      " preview_path = EXCLUDED.preview_path, is_public = EXCLUDED.is_public, is_active = true,"
      " upstream_voice_id = EXCLUDED.upstream_voice_id, updated_at = now()"
      " WHERE (voices.name, voices.language, voices.locale, voices.accent, voices.gender, voices.tags,"
      " voices.espeak_voice, voices.espeak_variant, voices.preview_path, voices.is_public, voices.is_active,"
      " voices.upstream_voice_id)"
      " IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.language, EXCLUDED.locale, EXCLUDED.accent, EXCLUDED.gender,"
      " EXCLUDED.tags, EXCLUDED.espeak_voice, EXCLUDED.espeak_variant, EXCLUDED.preview_path,"
      " EXCLUDED.is_public, true, EXCLUDED.upstream_voice_id)",
      payload);
  db.count();
  auto gone = tx.exec_params(
      "WITH r AS MATERIALIZED (SELECT x.service, x.voice_id FROM jsonb_to_recordset($1::jsonb)"
      "  AS x(service text, voice_id text))"
      " UPDATE voices v SET is_active = false, updated_at = now() FROM services s"
      " WHERE s.id = v.service_id AND v.is_active AND s.key IN (SELECT service FROM r)"
      " AND (s.key, v.voice_id) NOT IN (SELECT service, voice_id FROM r)",
      payload);
  db.count();
  report.deactivated = static_cast<std::int64_t>(gone.affected_rows());
  for (const auto& r : tx.exec(
           "SELECT s.key, count(v.id) FROM services s LEFT JOIN voices v ON v.service_id = s.id AND v.is_active"
           " WHERE s.kind = 'tts' GROUP BY s.key, s.position ORDER BY s.position, s.key")) {
    report.voices.emplace_back(r[0].as<std::string>(), r[1].as<std::int64_t>());
  }
  db.count();
  return report;
}

}  // namespace mediagen::voices
