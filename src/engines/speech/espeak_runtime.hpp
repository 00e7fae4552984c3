#pragma once
// The process's espeak-ng (internal): the voice and variant lists, read once from an espeak-ng
// initialised in this process (and never used here for speech), and the helper processes that
// speak (espeak_helpers.hpp). libespeak-ng keeps global state, so speech runs in helpers, one
// text at a time each, as many at once as there are callers.
//
// The runtime starts on the first instance() call and starts one helper then, so the first job
// does not wait for one. It is never destroyed: worker threads may still synthesise while the
// process exits, and the helpers end when their socket closes with the process.
#include <string>
#include <vector>

#include <boost/system/result.hpp>

#include "espeak_helpers.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::engines::detail {

class EspeakRuntime {
 public:
  static EspeakRuntime& instance();

  EspeakRuntime(const EspeakRuntime&) = delete;
  EspeakRuntime& operator=(const EspeakRuntime&) = delete;

  // Empty when espeak-ng and a first helper started; else why not (every job then fails with it).
  const std::string& start_error() const { return start_error_; }
  const std::vector<EspeakVoiceInfo>& voices() const { return voices_; }      // sorted by identifier
  const std::vector<EspeakVariantInfo>& variants() const { return variants_; }  // sorted by identifier

  // Speaks one job in a helper; blocks the caller until it is done. Safe from any thread.
  boost::system::result<SynthOutput, EngineFailure> synthesize(const SynthJob& job);

 private:
  EspeakRuntime();

  std::string start_error_;
  std::vector<EspeakVoiceInfo> voices_;
  std::vector<EspeakVariantInfo> variants_;
  EspeakHelpers helpers_;
};

}  // namespace mediagen::engines::detail
