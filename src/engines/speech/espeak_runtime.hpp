#pragma once
// The process's one espeak-ng synthesis thread (internal). libespeak-ng keeps global state and
// is not thread-safe: every espeak-ng call of the process is made on this thread. Callers queue
// a job and block until it is done; jobs run in arrival order.
//
// The thread starts on the first instance() call: it initialises espeak-ng once
// (AUDIO_OUTPUT_SYNCHRONOUS, the default data path) and reads the voice and variant lists,
// which stay in memory unchanged afterwards (so reading them needs no lock and no job). The
// runtime is never destroyed: worker threads may still synthesise while the process exits.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "speech_text.hpp"

namespace mediagen::engines::detail {

struct SynthJob {
  const std::string* text;  // valid UTF-8 without NUL; read in place (the caller waits)
  std::string voice;        // for espeak_SetVoiceByName: "gmw/en-US" or "gmw/en-US+m3"
  EspeakParameters parameters;
};

struct SynthOutput {
  std::vector<std::int16_t> pcm;      // mono, 16-bit, at EspeakRuntime::sample_rate()
  std::vector<RawWordEvent> words;    // espeakEVENT_WORD events, in order
};

class EspeakRuntime {
 public:
  static EspeakRuntime& instance();

  EspeakRuntime(const EspeakRuntime&) = delete;
  EspeakRuntime& operator=(const EspeakRuntime&) = delete;

  // Empty when espeak-ng started; else why it did not (every job then fails with it).
  const std::string& start_error() const { return start_error_; }
  int sample_rate() const { return sample_rate_; }
  const std::vector<EspeakVoiceInfo>& voices() const { return voices_; }      // sorted by identifier
  const std::vector<EspeakVariantInfo>& variants() const { return variants_; }  // sorted by identifier

  // Runs one job on the synthesis thread; blocks the caller until it is done.
  boost::system::result<SynthOutput, EngineFailure> synthesize(const SynthJob& job);

 private:
  struct Pending {
    const SynthJob* job;
    std::promise<boost::system::result<SynthOutput, EngineFailure>> done;
  };

  EspeakRuntime();
  void run(std::promise<void>& started);
  boost::system::result<SynthOutput, EngineFailure> execute(const SynthJob& job);

  std::string start_error_;
  int sample_rate_ = 0;
  std::vector<EspeakVoiceInfo> voices_;
  std::vector<EspeakVariantInfo> variants_;
  std::string current_voice_;  // synthesis thread only

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending*> queue_;
  std::thread thread_;
};

}  // namespace mediagen::engines::detail
