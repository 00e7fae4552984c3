#pragma once
// The speech helper processes (internal): each mediagen-espeak process holds its own espeak-ng
// state, so the server speaks as many texts at once as it has helpers, where one process-wide
// espeak-ng spoke one at a time. A job takes an idle helper or starts one (up to max_helpers;
// past that it waits), sends the text and reads the audio back in frames (mediagen/engines/speech/wire.hpp).
//
// A helper that does not answer in time, exits, or breaks the frames is killed and reaped; its
// job fails as a technical failure (the queue's retries and final outcome apply) and the next
// job starts a fresh helper. A crash in espeak-ng therefore ends one job, not the server.
// Helpers get none of the server's open files and of its environment only espeak-ng's
// variables, the locale, PATH and the sanitizers' options: no database URL, no secret.
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/engines/speech/wire.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "speech_text.hpp"

namespace mediagen::engines::detail {

struct SynthJob {
  const std::string* text;  // valid UTF-8 without NUL
  std::string voice;        // for espeak_SetVoiceByName: "gmw/en-US" or "gmw/en-US+m3"
  EspeakParameters parameters;
};

struct SynthOutput {
  std::vector<std::int16_t> pcm;    // mono, 16-bit, at sample_rate
  std::vector<RawWordEvent> words;  // espeakEVENT_WORD events, in order
  int sample_rate = 0;
};

struct HelperOptions {
  std::string path;  // the mediagen-espeak executable
  std::chrono::milliseconds start_timeout{10'000};
  // A job's whole answer: espeak-ng speaks ~20k characters per CPU-second and a chunk holds a few
  // thousand, so two minutes is a helper that hangs, not one that is busy.
  std::chrono::milliseconds job_timeout{120'000};
  std::size_t max_helpers = 32;
};

// Next to the running executable: where the build and the image put mediagen-espeak.
std::string default_helper_path();

class EspeakHelpers {
 public:
  explicit EspeakHelpers(HelperOptions options);
  ~EspeakHelpers();
  EspeakHelpers(const EspeakHelpers&) = delete;
  EspeakHelpers& operator=(const EspeakHelpers&) = delete;

  // Starts a helper ahead of the first job; the error when it could not.
  boost::system::result<void, EngineFailure> warm_up();
  boost::system::result<SynthOutput, EngineFailure> synthesize(const SynthJob& job);

  // The idle helpers' process ids, and how many helpers are running.
  std::vector<pid_t> idle_pids() const;
  std::size_t running() const;

 private:
  struct Helper {
    pid_t pid = -1;
    int fd = -1;
    int sample_rate = 0;
    wire::FrameReader reader;
  };
  using Lease = std::unique_ptr<Helper>;
  // How a job ended without audio; a helper that answered "failed" is still fit for the next job.
  struct JobEnd {
    EngineFailure failure;
    bool helper_healthy = false;
    bool before_answer = false;  // the helper ended before a frame of its answer
  };

  boost::system::result<Lease, EngineFailure> acquire();
  void release(Lease helper);  // back to idle
  void retire(Lease helper);   // ended, and its slot freed
  static void end(Helper& helper);  // killed and reaped
  boost::system::result<Lease, EngineFailure> spawn();
  boost::system::result<SynthOutput, JobEnd> run(Helper& helper, const std::string& job);

  HelperOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<Lease> idle_;
  std::size_t running_ = 0;
};

}  // namespace mediagen::engines::detail
