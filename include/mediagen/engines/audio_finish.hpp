#pragma once
// Finishing one chunk of speech before it is stitched: loudness normalisation, short fades at
// both ends, MP3 encoding. Every chunk of an order goes through the same steps, so the stitched
// track (the chunks' MP3 streams concatenated, see mp3_concat.hpp) neither clicks at a join
// (each chunk starts and ends at zero) nor jumps in loudness (each chunk sits at one target,
// whatever the voice's volume setting was).
//
// Loudness is a gated RMS: the PCM is cut into 20 ms blocks, blocks quieter than
// kSilenceGateDbfs (pauses) are left out, and the RMS of the rest is taken. dBFS here is relative
// to a full-scale square wave (RMS 32768 = 0 dBFS), so a full-scale sine measures -3 dBFS.
//
// Failures: only those of encode_mp3 (an unsupported sample rate, a LAME error), technical.
// Pure functions: no I/O, no shared state; safe from any number of threads.
#include <cstdint>
#include <optional>
#include <span>

#include <boost/system/result.hpp>

#include "mediagen/engines/engine.hpp"
#include "mediagen/engines/espeak_engine.hpp"
#include "mediagen/engines/mp3.hpp"

namespace mediagen::engines {

// Blocks whose RMS is at or below this are pauses, not speech (-60 dBFS is about 33 of 32768).
inline constexpr double kSilenceGateDbfs = -60.0;

struct FinishOptions {
  double target_dbfs = -20.0;   // gated RMS the chunk is brought to
  double ceiling_dbfs = -1.0;   // no sample peaks above this after the gain
  double max_gain_db = 12.0;    // quiet input is raised at most this much (noise stays noise)
  int fade_in_ms = 10;          // raised-cosine fades; 0 = none
  int fade_out_ms = 10;
  Mp3Options mp3{};
};

// Gated RMS level of mono PCM in dBFS; nullopt when every block is below the gate (silence).
std::optional<double> gated_rms_dbfs(std::span<const std::int16_t> pcm, int sample_rate);

// Largest absolute sample in dBFS; nullopt for all-zero (or empty) PCM.
std::optional<double> peak_dbfs(std::span<const std::int16_t> pcm);

// The gain finish_chunk applies: target minus level, at most max_gain_db, and low enough that the
// peak stays at or under the ceiling (so it may be negative). 0 for silence.
double normalization_gain_db(std::span<const std::int16_t> pcm, int sample_rate, const FinishOptions& options);

// Multiplies every sample by the gain, rounded, saturating at the int16 range.
void apply_gain(std::span<std::int16_t> pcm, double gain_db);

// Raised-cosine fade-in over the first fade_in_ms and fade-out over the last fade_out_ms; the first
// and last samples become 0. A fade longer than half the PCM is shortened to half.
void apply_fades(std::span<std::int16_t> pcm, int sample_rate, int fade_in_ms, int fade_out_ms);

// Normalise, fade, encode. The words move onto the MP3's time line (start_ms + the stream's
// delay_ms); duration_ms and sample_rate are the MP3's.
boost::system::result<Audio, EngineFailure> finish_chunk(SpeechPcm pcm, const FinishOptions& options = {});

}  // namespace mediagen::engines
