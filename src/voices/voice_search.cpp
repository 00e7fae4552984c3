#include "mediagen/voices/voice_search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <span>
#include <thread>
#include <tuple>

#include "mediagen/core/log.hpp"
#include "mediagen/engines/speech.hpp"
#include "voice_feature_store.hpp"

namespace mediagen::voices {

std::optional<engines::VoiceFeatures> describe_pair(engines::EspeakEngine& engine, const EspeakPair& pair,
                                                    std::string_view text) {
  auto pcm = engine.synthesize_pcm({.text = std::string(text), .espeak_voice = pair.voice, .variant = pair.variant});
  if (!pcm) return std::nullopt;
  return engines::voice_features(std::span<const std::int16_t>(pcm->samples), pcm->sample_rate);
}

FeatureSeedReport seed_voice_features(db::Db& db, int threads, const std::optional<std::string>& service) {
  const auto started = std::chrono::steady_clock::now();
  const auto todo = detail::pairs_to_describe(db, service);
  FeatureSeedReport report{.pairs = todo.total};
  std::vector<std::optional<engines::VoiceFeatures>> described(todo.missing.size());
  std::atomic<std::size_t> next{0};
  // espeak-ng speaks on its one thread; with several callers it always has the next sample
  // queued while the others analyse theirs.
  const auto work = [&] {
    engines::EspeakEngine engine;
    for (std::size_t i = next++; i < todo.missing.size(); i = next++) described[i] = describe_pair(engine, todo.missing[i]);
  };
  const int n = std::clamp(threads, 1, std::max<int>(1, static_cast<int>(todo.missing.size())));
  {
    std::vector<std::jthread> pool;
    for (int i = 1; i < n; ++i) pool.emplace_back(work);
    work();
  }
  std::vector<std::pair<EspeakPair, engines::VoiceFeatures>> rows;
  for (std::size_t i = 0; i < described.size(); ++i) {
    if (described[i]) {
      rows.emplace_back(todo.missing[i], *described[i]);
    } else {
      ++report.failed;
      log::warn("voice features: pair not described", {{"voice", todo.missing[i].voice}, {"variant", todo.missing[i].variant}});
    }
  }
  detail::store_voice_features(db, rows);
  report.computed = static_cast<int>(rows.size());
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

VoiceIndex::VoiceIndex(std::vector<engines::VoiceFeatures> pairs, std::vector<Voice> voices)
    : pairs_(std::move(pairs)), voices_(std::move(voices)) {}

std::vector<std::size_t> VoiceIndex::rank_pairs(const engines::VoiceFeatures& query) const {
  std::vector<std::pair<double, std::size_t>> d;
  d.reserve(pairs_.size());
  for (std::size_t i = 0; i < pairs_.size(); ++i) d.emplace_back(engines::voice_distance(query, pairs_[i]), i);
  std::sort(d.begin(), d.end());
  std::vector<std::size_t> out;
  out.reserve(d.size());
  for (const auto& [distance, i] : d) out.push_back(i);
  return out;
}

std::vector<VoiceMatch> VoiceIndex::rank(const engines::VoiceFeatures& query, std::size_t top) const {
  std::vector<double> distance(pairs_.size());
  for (std::size_t i = 0; i < pairs_.size(); ++i) distance[i] = engines::voice_distance(query, pairs_[i]);
  std::vector<const Voice*> order;
  order.reserve(voices_.size());
  for (const auto& v : voices_) order.push_back(&v);
  const auto key = [&](const Voice* v) { return std::tie(distance[v->pair], v->service, v->name, v->voice_id); };
  const auto n = std::min(top, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](const Voice* a, const Voice* b) { return key(a) < key(b); });
  std::vector<VoiceMatch> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Voice& v = *order[i];
    out.push_back({v.voice_id, v.service, v.name, engines::voice_score(distance[v.pair])});
  }
  return out;
}

std::shared_ptr<const VoiceIndex> load_voice_index(db::Db& db) {
  auto rows = detail::read_index_rows(db);
  return std::make_shared<const VoiceIndex>(std::move(rows.pairs), std::move(rows.voices));
}

std::shared_ptr<const VoiceIndex> VoiceIndexCache::current(db::Db& db) {
  const IndexStamp stamp = detail::read_index_stamp(db);
  std::lock_guard lock(mutex_);
  // Loaded under the lock: workers that find it stale together load it once.
  if (!index_ || stamp_ != stamp) {
    index_ = load_voice_index(db);
    stamp_ = stamp;
  }
  return index_;
}

}  // namespace mediagen::voices
