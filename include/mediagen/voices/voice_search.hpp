#pragma once
// Voice search: how each catalogue voice sounds, and the catalogue ranked against a sample.
//
// Catalogue voices are espeak-ng (voice, variant) pairs; voices of several services share a pair
// and so sound alike. Each pair is described once (engines/voice_features.hpp) from a fixed
// sample, stored in voice_features and never recomputed: a re-seed costs one query.
//
// The sample text is numbers (kFeatureSampleText). An English sentence would not do: espeak-ng
// reads Latin-script words in a voice of another script by switching to English, so every
// Russian, Chinese or Greek pair would be described by the same English voice. Digits are the
// one text every espeak-ng language speaks in its own words, so each pair is described speaking
// its own language, with no translation table to keep.
//
// Ranking: the distance from the query to every pair, then every active voice of every active
// service in order of its pair's distance (ties: service, name, voice_id). The index is held in
// memory by VoiceIndexCache and reloaded only when the tables change.
#include <compare>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/db/db.hpp"
#include "mediagen/engines/voice.hpp"

namespace mediagen::engines {
class EspeakEngine;
}

namespace mediagen::voices {

struct EspeakPair {
  std::string voice;
  std::string variant;
  friend auto operator<=>(const EspeakPair&, const EspeakPair&) = default;
};

// About six seconds of speech in any language.
inline constexpr std::string_view kFeatureSampleText =
    "1, 2, 3, 4, 5, 6, 7, 8, 9, 10. 11, 12, 13, 14, 15, 16, 17, 18, 19, 20. 30, 40, 50, 60, 70, 80, 90, 100.";

// The pair speaking `text`, described; nullopt when espeak-ng refuses the pair or the audio has
// nothing to describe. Blocking: espeak-ng synthesises on its one thread, the analysis runs here.
std::optional<engines::VoiceFeatures> describe_pair(engines::EspeakEngine& engine, const EspeakPair& pair,
                                                    std::string_view text = kFeatureSampleText);

struct FeatureSeedReport {
  int pairs = 0;        // distinct pairs of the active catalogue
  int computed = 0;     // described and stored by this call
  int failed = 0;       // could not be described (stay missing; tried again next time)
  double seconds = 0;   // wall time of this call
};

// Describes every pair of the active catalogue (or of one service's voices) without a stored
// row, on `threads` threads, and stores the rows (concurrent seeds are harmless: the first row
// of a pair stays). Voices whose pair has no row are not searchable yet.
FeatureSeedReport seed_voice_features(db::Db& db, int threads, const std::optional<std::string>& service = std::nullopt);

struct VoiceMatch {
  std::string voice_id;
  std::string service;
  std::string name;
  double score = 0;  // engines::voice_score of the distance: (0, 1], 1 = the same sound
};

class VoiceIndex {
 public:
  struct Voice {
    std::string voice_id;
    std::string service;
    std::string name;
    std::size_t pair = 0;  // index into the pairs' features
  };

  VoiceIndex(std::vector<engines::VoiceFeatures> pairs, std::vector<Voice> voices);

  // The `top` nearest voices, best first.
  std::vector<VoiceMatch> rank(const engines::VoiceFeatures& query, std::size_t top) const;
  // Pair indices ordered by distance to the query, nearest first (for quality measurements).
  std::vector<std::size_t> rank_pairs(const engines::VoiceFeatures& query) const;

  std::size_t pair_count() const noexcept { return pairs_.size(); }
  std::size_t voice_count() const noexcept { return voices_.size(); }
  const std::vector<Voice>& voices() const noexcept { return voices_; }

 private:
  std::vector<engines::VoiceFeatures> pairs_;
  std::vector<Voice> voices_;
};

// What the tables held when an index was loaded: rows and latest change of each.
struct IndexStamp {
  std::int64_t feature_rows = 0;
  std::int64_t voice_rows = 0;
  std::string latest_change;
  friend bool operator==(const IndexStamp&, const IndexStamp&) = default;
};

// Loads the whole index (blocking SQL).
std::shared_ptr<const VoiceIndex> load_voice_index(db::Db& db);

// The index of a process, shared by its workers: loaded on first use and again whenever the
// tables changed (one small query per call, never all rows). Thread-safe.
class VoiceIndexCache {
 public:
  std::shared_ptr<const VoiceIndex> current(db::Db& db);

 private:
  std::mutex mutex_;
  std::optional<IndexStamp> stamp_;
  std::shared_ptr<const VoiceIndex> index_;
};

}  // namespace mediagen::voices
