#pragma once
// MP3 encoding with LAME, for every engine that produces PCM (and for stitching, which may
// encode once from PCM instead of re-encoding).
//
// Output: MPEG audio frames only: no ID3 tag and no Xing/Info frame, so the streams of several
// chunks can be concatenated frame by frame into one valid stream (each stream starts with an
// empty bit reservoir). A decoder plays a stream as
//   delay_samples of near-silence, then the input PCM, then padding up to the last frame;
// delay_samples = LAME's encoder delay (576) + the MPEG synthesis filterbank delay (529), which
// every standard decoder has. Without a Xing/LAME tag no decoder trims them.
//
// Thread safety: encode_mp3 runs in the calling thread and may run in many threads at once.
// (LAME's one-time table set-up is serialised inside; see mp3.cpp.)
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/engines/engine.hpp"

struct lame_global_struct;  // LAME's encoder (lame.h), kept out of this header

namespace mediagen::engines {

struct Mp3Options {
  int bitrate_kbps = 64;  // CBR; the engine's choice is explained in espeak_engine.hpp
  int quality = 5;        // LAME's -q: 0 best/slowest .. 9 worst/fastest
};

struct Mp3Stream {
  std::string bytes;
  int sample_rate = 0;           // of the stream (= of the input; no resampling)
  std::int64_t frames = 0;
  int samples_per_frame = 0;     // 1152 (MPEG-1) or 576 (MPEG-2/2.5: 16, 22.05, 24 kHz and below)
  std::int64_t decoded_samples = 0;  // frames * samples_per_frame: what a decoder outputs
  int delay_samples = 0;         // where input sample 0 lands in the decoded output
  std::int64_t duration_ms = 0;  // decoded_samples in milliseconds, rounded
  std::int64_t delay_ms = 0;     // delay_samples in milliseconds, rounded
};

// Mono 16-bit PCM at sample_rate (8000..48000) to a CBR mono MP3. Empty PCM gives a stream of
// one frame of silence, never an empty string.
boost::system::result<Mp3Stream, EngineFailure> encode_mp3(std::span<const std::int16_t> pcm, int sample_rate,
                                                           const Mp3Options& options = {});

// Interleaved stereo 16-bit PCM (left, right, left, ...; an odd last sample is dropped) to a CBR
// joint-stereo MP3, with the same framing, delay and empty-input rule as encode_mp3.
boost::system::result<Mp3Stream, EngineFailure> encode_mp3_stereo(std::span<const std::int16_t> interleaved,
                                                                  int sample_rate, const Mp3Options& options = {});

// The same encoding fed block by block, for PCM too long to hold whole (minutes of stereo
// music): memory stays bounded by one block plus the MP3 written so far. One instance belongs
// to one thread at a time.
class Mp3Encoder {
 public:
  // channels: 1 (mono) or 2 (joint stereo, interleaved input).
  static boost::system::result<Mp3Encoder, EngineFailure> create(int channels, int sample_rate,
                                                                 const Mp3Options& options = {});
  Mp3Encoder(Mp3Encoder&&) noexcept;
  Mp3Encoder& operator=(Mp3Encoder&&) noexcept;
  ~Mp3Encoder();

  // Appends frames of PCM (samples.size() / channels of them; interleaved when stereo).
  boost::system::result<void, EngineFailure> write(std::span<const std::int16_t> samples);
  // Flushes the encoder; the encoder is spent afterwards.
  boost::system::result<Mp3Stream, EngineFailure> finish();

 private:
  struct Closer {
    void operator()(lame_global_struct* gfp) const;
  };
  Mp3Encoder(std::unique_ptr<lame_global_struct, Closer> lame, int channels, int bitrate_kbps);

  std::unique_ptr<lame_global_struct, Closer> lame_;
  int channels_ = 1;
  std::int64_t frames_in_ = 0;
  std::string bytes_;
  std::vector<unsigned char> buffer_;
};

}  // namespace mediagen::engines
