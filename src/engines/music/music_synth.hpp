#pragma once
// FluidSynth for the music engine: the soundfont loaded once and shared, and offline rendering of
// a score (no audio driver, no MIDI player thread).
//
// Sharing: FluidSynth keeps a loaded soundfont's samples in a process-wide cache keyed by file,
// and a later load of the same file by another synthesizer reuses them. SoundfontShare loads the
// soundfont into one synthesizer that never plays (the anchor) and keeps it for its own lifetime,
// so the samples stay resident; each render then gets a fresh synthesizer whose load is a cache
// hit (tens of milliseconds instead of the first load's fraction of a second, and no second copy
// of the samples). A fresh synthesizer per render, rather than a pool of reused ones, is what makes
// a render depend on its request only: a reset synthesizer does not replay a score bit for bit.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include <boost/system/result.hpp>

#include "music_master.hpp"
#include "music_score.hpp"
#include "mediagen/engines/audio.hpp"

struct _fluid_synth_t;       // fluidsynth.h's fluid_synth_t
struct _fluid_hashtable_t;   // fluidsynth.h's fluid_settings_t

namespace mediagen::engines::music {

struct SynthDeleter {
  void operator()(_fluid_synth_t* synth) const;
};
using Synth = std::unique_ptr<_fluid_synth_t, SynthDeleter>;

class SoundfontShare {
 public:
  explicit SoundfontShare(std::string path);
  ~SoundfontShare();
  SoundfontShare(const SoundfontShare&) = delete;
  SoundfontShare& operator=(const SoundfontShare&) = delete;

  // Loads the soundfont if it is not loaded yet (a failure is not remembered: the next call tries
  // again). Thread-safe.
  boost::system::result<void, EngineFailure> load();
  // A new synthesizer with the soundfont, 44.1 kHz stereo. Thread-safe.
  boost::system::result<Synth, EngineFailure> synth();

 private:
  std::string path_;
  std::mutex mutex_;
  _fluid_hashtable_t* settings_ = nullptr;  // shared by every synthesizer; outlives them
  Synth anchor_;
};

// Plays the score into the bus, frames long, in blocks between events; then finishes the bus.
boost::system::result<void, EngineFailure> render(_fluid_synth_t* synth, const Score& score, std::int64_t frames,
                                                  MasterBus& bus);

}  // namespace mediagen::engines::music
