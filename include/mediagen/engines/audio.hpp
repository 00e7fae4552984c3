#pragma once
// The generation engines' common interface. Every generation service (speech now; sound
// effects, music and an upstream HTTP provider later) is an engine: text or a prompt plus
// settings in, audio and word timings out, or a failure of one of two kinds.
//
// Failure kinds
//   technical  the engine could not do the work (bad configuration, unknown voice, empty text,
//              codec error, engine unavailable): the chunk may be retried and is not the
//              customer's fault;
//   policy     the engine refuses the content itself (a provider's moderation): retrying the
//              same text gives the same answer.
//
// Thread safety: synthesize() may be called from any number of threads at once; an engine
// that wraps a non-thread-safe library serialises inside (see espeak_engine.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include "mediagen/engines/voice.hpp"

namespace mediagen::engines {

// The voice settings an engine honours; nullopt = not honoured (the engine uses its neutral
// default). Bounds are checked by the caller: stability, similarity_boost in [0,1], speed in
// [0.7,1.2] (templates::effective_voice_settings decides which fields reach the engine).
struct VoiceSettings {
  std::optional<double> stability;
  std::optional<double> similarity_boost;
  std::optional<double> speed;
  std::optional<bool> use_speaker_boost;
};

struct SpeechRequest {
  std::string text;           // UTF-8, spoken as is: no markup is interpreted
  std::string espeak_voice;   // e.g. "en-us" or "gmw/en-US" (see EspeakVoiceInfo::identifier)
  std::string variant;        // e.g. "m3" (see EspeakVariantInfo::key), may be empty
  std::string language_code;  // optional ISO 639-1 (or BCP 47 tag) override, may be empty
  VoiceSettings settings;
  // A voice clone's profile: when set, its base voice and variant replace espeak_voice and
  // variant, and its pitch, range and rate replace the settings' (speed still scales the rate).
  std::optional<VoiceProfile> profile;
  // The text spoken before and after this one (a chunk's neighbours), for a provider that
  // carries its prosody across the join (ElevenLabs' previous_text, next_text); empty: none.
  // The embedded engine speaks each text on its own.
  std::string previous_text;
  std::string next_text;
  // ElevenLabs' <break time="..."/> tags in `text` are pauses, not text (speech/breaks.hpp); set
  // for texts of the ElevenLabs-compatible surface only.
  bool breaks = false;
};

// One spoken word: its place in SpeechRequest::text (byte offset and byte length into the
// UTF-8 text, always at a code point boundary) and when it starts in Audio::mp3.
struct WordTiming {
  std::size_t text_offset;
  std::size_t text_length;
  std::int64_t start_ms;
};

struct Audio {
  std::string mp3;           // a complete MPEG audio stream: frames only, no ID3 or Xing/Info tag
  int sample_rate;           // Hz, of the MP3 (and of the engine's PCM)
  std::int64_t duration_ms;  // of the MP3 as a decoder plays it (all frames)
  std::vector<WordTiming> words;  // increasing text_offset and non-decreasing start_ms
  bool words_estimated = false;   // the timings were estimated from the text, not given by the engine
};

enum class FailureKind { technical, policy };
std::string_view to_string(FailureKind kind);

struct EngineFailure {
  FailureKind kind;
  std::string detail;  // for logs and the chunk's error record, in English
  std::string reason;  // the chunk's failure_reason when the engine names one (upstreams); empty: generic

  static EngineFailure technical(std::string detail) { return {FailureKind::technical, std::move(detail), {}}; }
  static EngineFailure policy(std::string detail) { return {FailureKind::policy, std::move(detail), {}}; }
  static EngineFailure technical(std::string reason, std::string detail) {
    return {FailureKind::technical, std::move(detail), std::move(reason)};
  }
};

class SpeechEngine {
 public:
  virtual ~SpeechEngine() = default;
  virtual boost::system::result<Audio, EngineFailure> synthesize(const SpeechRequest&) = 0;
};

// What result<T, EngineFailure>::value() throws when it holds a failure.
class EngineError : public std::runtime_error {
 public:
  explicit EngineError(EngineFailure failure);
  const EngineFailure& failure() const noexcept { return failure_; }

 private:
  EngineFailure failure_;
};

[[noreturn]] void throw_exception_from_error(const EngineFailure& failure, const boost::source_location& loc);

}  // namespace mediagen::engines

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


struct lame_global_struct;  // LAME's encoder (lame.h), kept out of this header

namespace mediagen::engines {

// A count of samples at `sample_rate` as milliseconds, rounded to the nearest.
inline std::int64_t samples_to_ms(std::int64_t samples, int sample_rate) {
  return (samples * 1000 + sample_rate / 2) / sample_rate;
}

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

// Stitching MP3 streams without re-encoding. The chunks' streams (encode_mp3 / finish_chunk:
// frames only, each starting with an empty bit reservoir) are joined byte for byte, which gives
// one valid stream and costs no CPU beyond checking the frame headers.
//
// What is checked, so a broken chunk never reaches a customer's file: every stream is walked
// frame by frame from its first byte (MPEG-1/2/2.5 Layer III headers: sync, version, layer,
// bitrate, sample rate, padding give each frame's length) to its last byte; all frames of all
// streams share one sample rate and one channel mode. Refused as technical failures: no streams,
// an empty stream, bytes that are not a frame header (ID3 tags included), a last frame cut
// short, a Xing/Info/VBRI tag frame (it would state the length of the first chunk only), a
// sample rate or channel mode that differs from the first frame's. Bitrates may differ.
// Pure functions (and a joiner object per join): no I/O; safe from any number of threads.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <boost/system/result.hpp>


namespace mediagen::engines {

// What the frames of a checked stream add up to.
struct Mp3Frames {
  std::int64_t frames = 0;
  int sample_rate = 0;
  int samples_per_frame = 0;         // 1152 (MPEG-1) or 576 (MPEG-2/2.5)
  int channels = 0;                  // 1 or 2
  std::int64_t decoded_samples = 0;  // frames * samples_per_frame (per channel)
  std::int64_t duration_ms = 0;      // decoded_samples in milliseconds, rounded
};

// The same checks over streams that arrive in pieces, for joining files far larger than memory:
// the stitcher reads each chunk's file in bounded pieces, hands them here and writes out what is
// accepted. Holds only counters; the caller keeps the unaccepted tail of the current stream
// (less than one frame: at most kMaxFrameBytes) and hands it back in front of the next piece.
class Mp3Joiner {
 public:
  // The longest Layer III frame: 320 kbit/s at 32 kHz (MPEG-1), padded.
  static constexpr std::size_t kMaxFrameBytes = 1441;

  // Of `bytes` (the current stream's unaccepted tail, then its next piece), how many leading
  // bytes are whole frames that passed the checks: write those out, keep the rest. Refused as
  // scan_mp3 refuses, or when the stream's format differs from the first stream's.
  boost::system::result<std::size_t, EngineFailure> take(std::string_view bytes);

  // The current stream ended and `tail` was never accepted: refused unless the tail is empty and
  // the stream had bytes. Returns the stream's totals; the next take() starts the next stream.
  boost::system::result<Mp3Frames, EngineFailure> end_stream(std::string_view tail);

  // The totals of the streams ended so far, as one stream.
  const Mp3Frames& joined() const { return joined_; }
  int streams() const { return streams_; }

 private:
  struct StreamFormat {
    int sample_rate = 0;
    int channel_mode = 0;
    bool operator==(const StreamFormat&) const = default;
  };
  StreamFormat format_;     // of the first frame of the first stream
  Mp3Frames stream_;        // the current stream so far (frames and format)
  std::uint64_t offset_ = 0;  // bytes of the current stream accepted
  Mp3Frames joined_;
  int streams_ = 0;
};

// Walks one stream; refuses it as described above.
boost::system::result<Mp3Frames, EngineFailure> scan_mp3(std::string_view stream);

// The stream's length as a decoder plays it: frames * samples_per_frame / sample_rate, rounded
// to the millisecond (the same rounding as Mp3Stream::duration_ms).
boost::system::result<std::int64_t, EngineFailure> mp3_duration_ms(std::string_view stream);

// The streams joined in order, after every one passed scan_mp3 and all agree on sample rate and
// channel mode.
boost::system::result<std::string, EngineFailure> concat_mp3(std::span<const std::string_view> streams);

}  // namespace mediagen::engines

// Finishing audio before it is stitched: loudness normalisation, short fades at both ends, MP3
// encoding (finish_chunk in speech.hpp for a chunk of speech; the sound effects fade the same way). Every chunk of an order goes through the same steps, so the stitched
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

}  // namespace mediagen::engines
