#include "mediagen/voices/clone_job.hpp"

#include <algorithm>
#include <stdexcept>
#include <variant>

#include <nlohmann/json.hpp>

#include "clone_store.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/engines/codec.hpp"
#include "mediagen/engines/voice.hpp"
#include "mediagen/storage/object_store.hpp"
#include "mediagen/voices/clones.hpp"

namespace mediagen::voices {
namespace {

struct Built {
  engines::VoiceProfile profile;
  double seconds = 0;
};
struct Refused {
  std::string reason;
  std::optional<double> seconds;
};
using Outcome = std::variant<Built, Refused>;

std::string new_voice_id(std::string_view service) {
  if (service == "provider_d") {
    const std::string bytes = crypto::random_bytes(16);
    return crypto::to_hex(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  }
  return random_uuid();
}

// The samples decoded and joined, at most max_total_seconds; nullopt when none decodes.
std::optional<engines::AnalysisAudio> decode_samples(storage::ObjectStore& store, const Clone& clone,
                                                     double max_total_seconds) {
  std::optional<engines::AnalysisAudio> joined;
  for (std::int64_t i = 0; i < clone.sample_count; ++i) {
    const auto key = sample_key(clone.id, static_cast<std::size_t>(i));
    auto size = store.stat(key);
    if (!size || !*size) continue;
    auto bytes = store.read(key, 0, **size);
    if (!bytes) continue;
    auto audio = engines::read_audio(*bytes);
    if (!audio) continue;
    if (!joined) joined.emplace().sample_rate = audio->sample_rate;
    const auto room = static_cast<std::size_t>(max_total_seconds * joined->sample_rate) - joined->samples.size();
    const auto take = std::min(room, audio->samples.size());
    joined->samples.insert(joined->samples.end(), audio->samples.begin(),
                           audio->samples.begin() + static_cast<std::ptrdiff_t>(take));
    if (joined->samples.size() * 1.0 >= max_total_seconds * joined->sample_rate) break;
  }
  if (joined) joined->seconds = static_cast<double>(joined->samples.size()) / joined->sample_rate;
  return joined;
}

}  // namespace

CloneJob::CloneJob(storage::ObjectStore& store, engines::EspeakEngine& engine,
                   std::function<void(realtime::Event)> publish, CloneJobOptions options)
    : store_(store), engine_(engine), publish_(std::move(publish)), options_(options) {}

std::optional<engines::VoiceFeatures> CloneJob::described(const std::string& voice, const std::string& variant) {
  const auto key = std::make_pair(voice, variant);
  {
    std::lock_guard lock(mutex_);
    if (auto it = described_.find(key); it != described_.end()) return it->second;
  }
  auto f = engines::espeak_voice_features(engine_, {voice, variant}, engines::profile_calibration_text());
  std::lock_guard lock(mutex_);
  described_.emplace(key, f);
  return f;
}

bool CloneJob::run_once(db::Db& db) {
  const auto exhausted = db::transact(db, [&](db::Tx& tx) { return store::fail_exhausted(db, tx, options_.max_attempts); });
  for (const auto& c : exhausted) publish_(clone_event(c));
  const std::string token = random_uuid();
  const double lease = static_cast<double>(options_.lease.count());
  auto claimed = db::transact(db, [&](db::Tx& tx) { return store::claim(db, tx, token, lease); });
  if (!claimed) return !exhausted.empty();
  publish_(clone_event(claimed->clone));

  std::optional<Clone> settled;
  try {
    Outcome outcome = [&]() -> Outcome {
      auto audio = decode_samples(store_, claimed->clone, options_.max_total_seconds);
      if (!audio) return Refused{"undecodable", std::nullopt};
      if (audio->seconds < options_.min_seconds) return Refused{"too_short", audio->seconds};
      auto sample = engines::voice_features(audio->samples, audio->sample_rate);
      if (!sample) return Refused{"no_speech", audio->seconds};
      auto rows = db::read(db, [&](db::Tx& tx) { return store::candidates(db, tx, claimed->clone.service); });
      std::vector<engines::VoiceCandidate> candidates;
      for (auto& r : rows) {
        std::optional<engines::VoiceFeatures> f;
        if (r.features && r.features->size() == engines::kVoiceFeatureSize) {
          f.emplace();
          std::copy(r.features->begin(), r.features->end(), f->begin());
        } else {
          f = described(r.espeak_voice, r.espeak_variant);
        }
        if (f) candidates.push_back({r.espeak_voice, r.espeak_variant, *f});
      }
      // No catalogue voice to start from: espeak-ng's default voice, calibrated all the same.
      if (candidates.empty()) candidates.push_back({"en-us", "", engines::VoiceFeatures{}});
      auto built = engines::build_voice_profile(*sample, candidates, engines::espeak_profile_probe(engine_));
      if (!built) throw std::runtime_error("the speech engine spoke none of the candidate voices");
      return Built{built->profile, audio->seconds};
    }();
    settled = db::transact(db, [&](db::Tx& tx) -> std::optional<Clone> {
      if (auto* b = std::get_if<Built>(&outcome)) {
        const auto profile = to_json_text(engines::voice_profile_to_json(b->profile));
        return store::settle_ready(db, tx, *claimed, new_voice_id(claimed->clone.service), profile, b->seconds);
      }
      const auto& r = std::get<Refused>(outcome);
      return store::settle_failed(db, tx, *claimed, r.reason, r.seconds);
    });
  } catch (const std::exception& e) {
    log::warn("clone analysis failed", {{"clone_id", claimed->clone.id}, {"error", e.what()}});
    settled = db::transact(db, [&](db::Tx& tx) { return store::settle_requeue(db, tx, *claimed); });
  }
  if (!settled) {
    log::info("clone result discarded: lease lost", {{"clone_id", claimed->clone.id}});
    return true;
  }
  publish_(clone_event(*settled));
  if (settled->status == CloneStatus::ready) (void)store_.remove_prefix(samples_prefix(settled->id));
  return true;
}

}  // namespace mediagen::voices
