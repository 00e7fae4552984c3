#include "music_synth.hpp"

#include <fluidsynth.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

namespace mediagen::engines::music {

void SynthDeleter::operator()(fluid_synth_t* synth) const { delete_fluid_synth(synth); }

SoundfontShare::SoundfontShare(std::string path) : path_(std::move(path)) {}

SoundfontShare::~SoundfontShare() {
  anchor_.reset();
  if (settings_ != nullptr) delete_fluid_settings(settings_);
}

boost::system::result<void, EngineFailure> SoundfontShare::load() {
  std::lock_guard lock(mutex_);
  if (anchor_) return {};
  // fluid_is_soundfont reads the file's header: a missing, unreadable or foreign file is refused
  // here, before FluidSynth's loader would log about it.
  if (fluid_is_soundfont(path_.c_str()) == 0) {
    return EngineFailure::technical("music: no readable soundfont at " + path_);
  }
  if (settings_ == nullptr) {
    settings_ = new_fluid_settings();
    if (settings_ == nullptr) return EngineFailure::technical("music: new_fluid_settings failed");
    fluid_settings_setnum(settings_, "synth.sample-rate", kSampleRate);
    fluid_settings_setnum(settings_, "synth.gain", 0.2);
    fluid_settings_setint(settings_, "synth.audio-channels", 1);
    // The arrangements peak near 100 voices; the cap bounds a render's cost whatever the prompt
    // (FluidSynth then ends the quietest released voices first).
    fluid_settings_setint(settings_, "synth.polyphony", 96);
    fluid_settings_setint(settings_, "synth.cpu-cores", 1);         // no render threads of its own
    fluid_settings_setint(settings_, "synth.threadsafe-api", 0);    // one thread per synthesizer
    fluid_settings_setint(settings_, "synth.lock-memory", 0);       // no mlock of the samples
    fluid_settings_setint(settings_, "synth.chorus.active", 0);     // the scores send no chorus
    fluid_settings_setint(settings_, "synth.reverb.active", 1);
  }
  Synth anchor(new_fluid_synth(settings_));
  if (!anchor) return EngineFailure::technical("music: new_fluid_synth failed");
  if (fluid_synth_sfload(anchor.get(), path_.c_str(), 1) == FLUID_FAILED) {
    return EngineFailure::technical("music: FluidSynth could not load the soundfont at " + path_);
  }
  anchor_ = std::move(anchor);
  return {};
}

boost::system::result<Synth, EngineFailure> SoundfontShare::synth() {
  if (auto loaded = load(); !loaded) return loaded.error();
  // Creation is serialised: FluidSynth sets up process-wide tables on its first synthesizer, and
  // the sample cache lookup is cheap next to a render.
  std::lock_guard lock(mutex_);
  Synth synth(new_fluid_synth(settings_));
  if (!synth) return EngineFailure::technical("music: new_fluid_synth failed");
  if (fluid_synth_sfload(synth.get(), path_.c_str(), 1) == FLUID_FAILED) {
    return EngineFailure::technical("music: FluidSynth could not load the soundfont at " + path_);
  }
  return synth;
}

namespace {

struct Event {
  std::int64_t frame;
  bool on;
  std::uint8_t channel, key, velocity;
};

std::vector<Event> events_of(const Score& score) {
  std::array<bool, 16> playing{};
  for (std::size_t p = 0; p < kParts; ++p) {
    if (score.parts[p].program >= 0) playing[static_cast<std::size_t>(channel_of(static_cast<Part>(p)))] = true;
  }
  std::vector<Event> events;
  events.reserve(score.notes.size() * 2);
  for (const auto& note : score.notes) {
    if (note.channel >= playing.size() || !playing[note.channel]) continue;
    events.push_back({tick_to_sample(note.on, score.bpm), true, note.channel, note.key, note.velocity});
    events.push_back({tick_to_sample(note.off, score.bpm), false, note.channel, note.key, 0});
  }
  // At one instant a note ends before the next begins, so a repeated key sounds again.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.frame, a.on) < std::tie(b.frame, b.on);
  });
  return events;
}

void set_up_channels(fluid_synth_t* synth, const Score& score) {
  for (std::size_t p = 0; p < kParts; ++p) {
    const auto& setup = score.parts[p];
    if (setup.program < 0) continue;
    const int channel = channel_of(static_cast<Part>(p));
    fluid_synth_program_change(synth, channel, setup.program);
    fluid_synth_cc(synth, channel, 7, setup.volume);
    fluid_synth_cc(synth, channel, 10, setup.pan);
    fluid_synth_cc(synth, channel, 91, setup.reverb);
  }
}

}  // namespace

boost::system::result<void, EngineFailure> render(fluid_synth_t* synth, const Score& score, std::int64_t frames,
                                                  MasterBus& bus) {
  constexpr std::int64_t kBlock = 4096;
  std::vector<float> left(kBlock), right(kBlock);
  set_up_channels(synth, score);
  const auto events = events_of(score);
  std::size_t next_event = 0;
  for (std::int64_t at = 0; at < frames;) {
    for (; next_event < events.size() && events[next_event].frame <= at; ++next_event) {
      const auto& e = events[next_event];
      if (e.on) {
        fluid_synth_noteon(synth, e.channel, e.key, e.velocity);
      } else {
        fluid_synth_noteoff(synth, e.channel, e.key);
      }
    }
    const std::int64_t until = next_event < events.size() ? std::min(events[next_event].frame, frames) : frames;
    const auto n = static_cast<int>(std::min(kBlock, until - at));
    if (fluid_synth_write_float(synth, n, left.data(), 0, 1, right.data(), 0, 1) != FLUID_OK) {
      return EngineFailure::technical("music: fluid_synth_write_float failed");
    }
    const auto count = static_cast<std::size_t>(n);
    if (!bus.push({left.data(), count}, {right.data(), count})) {
      return EngineFailure::technical("music: MP3 encoding failed");
    }
    at += n;
  }
  if (!bus.finish()) return EngineFailure::technical("music: MP3 encoding failed");
  return {};
}

}  // namespace mediagen::engines::music
