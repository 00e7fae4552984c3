#pragma once
// The clone job, run by the generation workers between chunks (WorkerPoolOptions::side_jobs):
// claim one pending clone (SKIP LOCKED, with a lease), decode its samples (audio intake, 60 s
// per sample), describe them (voice features), build the profile (engines/voice_profile.hpp)
// from the service's catalogue voices, and settle: ready with a new voice_id (a UUID for
// provider_c, 32 lowercase hex for provider_d) and the samples deleted, or failed with a
// reason (samples kept so that a retry can run):
//   undecodable         no sample could be decoded as audio
//   too_short           less than min_seconds of audio in all samples together
//   no_speech           nothing above the silence gate to describe
//   attempts_exhausted  max_attempts claims ended without an outcome (crashes, errors)
// A worker that dies mid-job leaves the clone processing; when its lease runs out the next
// claim takes it again (attempts + 1). An exception inside the job puts the clone back at once.
// Candidates come from the voice_features table (filled by voice search); a pair without a row
// is described on the fly by speaking the calibration text, once per process.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "mediagen/db/db.hpp"
#include "mediagen/engines/voice.hpp"
#include "mediagen/realtime/event.hpp"

namespace mediagen::storage {
class ObjectStore;
}
namespace mediagen::engines {
class EspeakEngine;
}

namespace mediagen::voices {

struct CloneJobOptions {
  std::chrono::seconds lease{600};
  std::int64_t max_attempts = 3;
  double min_seconds = 2.0;
  double max_total_seconds = 180;  // of all samples together; the rest is not analysed
};

class CloneJob {
 public:
  CloneJob(storage::ObjectStore& store, engines::EspeakEngine& engine, std::function<void(realtime::Event)> publish,
           CloneJobOptions options = {});

  // Claims and runs one clone; false when none was waiting. Blocking: a worker thread.
  bool run_once(db::Db& db);

 private:
  std::optional<engines::VoiceFeatures> described(const std::string& voice, const std::string& variant);

  storage::ObjectStore& store_;
  engines::EspeakEngine& engine_;
  std::function<void(realtime::Event)> publish_;
  CloneJobOptions options_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::optional<engines::VoiceFeatures>> described_;
};

}  // namespace mediagen::voices
