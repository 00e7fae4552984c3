// SQL of voice search: the stored descriptions of the synthesiser pairs and the voices using them.
#include "voice_feature_store.hpp"

#include <cstdlib>
#include <map>
#include <stdexcept>

#include "mediagen/db/pg.hpp"

namespace mediagen::voices::detail {
namespace {

#define MG_ACTIVE_VOICES " FROM voices v JOIN services s ON s.id = v.service_id WHERE v.is_active AND s.is_active"

const db::Statement kPairCount{"voice_features_pair_count",
                               "SELECT count(DISTINCT (v.espeak_voice, v.espeak_variant))" MG_ACTIVE_VOICES
                               " AND ($1::text IS NULL OR s.key = $1)"};
const db::Statement kMissing{
    "voice_features_missing",
    "SELECT DISTINCT v.espeak_voice, v.espeak_variant" MG_ACTIVE_VOICES " AND ($1::text IS NULL OR s.key = $1)"
    " AND NOT EXISTS (SELECT 1 FROM voice_features f"
    " WHERE f.espeak_voice = v.espeak_voice AND f.espeak_variant = v.espeak_variant)"
    " ORDER BY 1, 2"};
const db::Statement kInsert{"voice_features_insert",
                            "INSERT INTO voice_features (espeak_voice, espeak_variant, features)"
                            " VALUES ($1, $2, $3::real[]) ON CONFLICT (espeak_voice, espeak_variant) DO NOTHING"};
const db::Statement kStamp{
    "voice_features_stamp",
    "SELECT (SELECT count(*) FROM voice_features),"
    " (SELECT count(*)" MG_ACTIVE_VOICES "),"
    " greatest((SELECT max(computed_at) FROM voice_features), (SELECT max(updated_at) FROM voices),"
    " (SELECT max(updated_at) FROM services))::text"};
const db::Statement kRows{"voice_features_voices",
                          "SELECT v.voice_id, s.key, v.name, v.espeak_voice, v.espeak_variant" MG_ACTIVE_VOICES
                          " ORDER BY s.position, v.voice_id"};
const db::Statement kFeatures{"voice_features_all",
                              "SELECT espeak_voice, espeak_variant, array_to_string(features, ' ') FROM voice_features"};

#undef MG_ACTIVE_VOICES

std::string array_literal(const engines::VoiceFeatures& f) {
  std::string out = "{";
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(f[i]);
  }
  return out + "}";
}

engines::VoiceFeatures parse_features(const std::string& text) {
  engines::VoiceFeatures f{};
  const char* p = text.c_str();
  for (auto& v : f) {
    char* end = nullptr;
    v = std::strtof(p, &end);
    if (end == p) throw std::runtime_error("voice_features: a row with fewer numbers than expected");
    p = end;
  }
  return f;
}

}  // namespace

PairsToDescribe pairs_to_describe(db::Db& db, const std::optional<std::string>& service) {
  return db::transact(db, [&](db::Tx& tx) {
    PairsToDescribe out;
    out.total = db.exec(tx, kPairCount, service)[0][0].as<int>();
    for (const auto& r : db.exec(tx, kMissing, service)) out.missing.push_back({r[0].as<std::string>(), r[1].as<std::string>()});
    return out;
  });
}

void store_voice_features(db::Db& db, const std::vector<std::pair<EspeakPair, engines::VoiceFeatures>>& rows) {
  if (rows.empty()) return;
  db::transact(db, [&](db::Tx& tx) {
    for (const auto& [pair, features] : rows) db.exec(tx, kInsert, pair.voice, pair.variant, array_literal(features));
  });
}

IndexStamp read_index_stamp(db::Db& db) {
  return db::read(db, [&](db::Tx& tx) {
    const auto r = db.exec(tx, kStamp)[0];
    return IndexStamp{r[0].as<std::int64_t>(), r[1].as<std::int64_t>(), r[2].is_null() ? "" : r[2].as<std::string>()};
  });
}

IndexRows read_index_rows(db::Db& db) {
  return db::transact(db, [&](db::Tx& tx) {
    IndexRows out;
    std::map<EspeakPair, std::size_t> index;
    for (const auto& r : db.exec(tx, kFeatures)) {
      index.emplace(EspeakPair{r[0].as<std::string>(), r[1].as<std::string>()}, out.pairs.size());
      out.pairs.push_back(parse_features(r[2].as<std::string>()));
    }
    for (const auto& r : db.exec(tx, kRows)) {
      const auto it = index.find(EspeakPair{r[3].as<std::string>(), r[4].as<std::string>()});
      if (it == index.end()) continue;  // not described yet: not searchable
      out.voices.push_back({r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(), it->second});
    }
    return out;
  });
}

}  // namespace mediagen::voices::detail
