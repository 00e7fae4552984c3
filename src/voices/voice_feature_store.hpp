#pragma once
// The SQL of voice search (voice_features, and the catalogue voices it describes).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mediagen/db/db.hpp"
#include "mediagen/voices/voice_search.hpp"

namespace mediagen::voices::detail {

struct PairsToDescribe {
  int total = 0;                    // distinct pairs of active voices
  std::vector<EspeakPair> missing;  // those without a stored row
};
// `service`: only the pairs of that service's voices.
PairsToDescribe pairs_to_describe(db::Db& db, const std::optional<std::string>& service);

// Inserts the rows; a pair already stored keeps its row.
void store_voice_features(db::Db& db, const std::vector<std::pair<EspeakPair, engines::VoiceFeatures>>& rows);

IndexStamp read_index_stamp(db::Db& db);

struct IndexRows {
  std::vector<engines::VoiceFeatures> pairs;
  std::vector<VoiceIndex::Voice> voices;
};
// Active voices of active services whose pair has a stored row.
IndexRows read_index_rows(db::Db& db);

}  // namespace mediagen::voices::detail
