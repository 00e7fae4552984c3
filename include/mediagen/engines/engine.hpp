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

#include "mediagen/engines/voice_profile.hpp"

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
