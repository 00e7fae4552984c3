#pragma once
// Where a worker gets speech PCM from. The embedded espeak-ng engine is one source; tests use
// others. Called from every worker thread at once: a source serialises inside if it must.
#include <boost/system/result.hpp>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::workers {

class SpeechSource {
 public:
  virtual ~SpeechSource() = default;
  // PCM with word timings on the PCM's time line; the worker normalises and encodes it.
  virtual boost::system::result<engines::SpeechPcm, engines::EngineFailure> speak(const engines::SpeechRequest&) = 0;
};

class EspeakSource final : public SpeechSource {
 public:
  explicit EspeakSource(engines::EspeakEngine& engine) : engine_(engine) {}
  boost::system::result<engines::SpeechPcm, engines::EngineFailure> speak(const engines::SpeechRequest& r) override {
    return engine_.synthesize_pcm(r);
  }

 private:
  engines::EspeakEngine& engine_;
};

}  // namespace mediagen::workers
