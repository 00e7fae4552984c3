#pragma once
// The frames between the server and its speech helpers (internal). libespeak-ng keeps global
// state, so one process can speak one text at a time; each helper process (mediagen-espeak)
// holds its own espeak-ng and speaks the jobs the server sends it over a socket pair.
//
// A frame is a type byte, a little-endian u32 payload length and the payload; a payload is at
// most kMaxPayload bytes. The server sends one `job` and reads until `done` or `failed`:
//   job     i32 rate, i32 pitch, i32 range, i32 volume, u32 voice length, voice, text
//   ready   u32 sample rate (once, when the helper has started)
//   pcm     mono 16-bit samples, little-endian: audio as espeak-ng makes it, in pieces
//   words   n x (i32 text position, i32 length, i64 audio ms)
//   done    empty: the job is spoken
//   failed  printable ASCII: why not
// Both ends check every frame; anything else ends the helper (it is restarted).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::engines::detail::wire {

// espeak-ng's parameters for one job (espeakRATE, espeakPITCH, espeakRANGE, espeakVOLUME).
struct Parameters {
  int rate_wpm;
  int pitch;
  int pitch_range;
  int volume;
};

// A word event as espeak-ng reports it: text_position is the 1-based index of the word's first
// code point, length its length in code points, audio_ms its start in the synthesised audio.
struct WordEvent {
  int text_position;
  int length;
  std::int64_t audio_ms;
};

enum class FrameType : std::uint8_t { job = 'J', ready = 'R', pcm = 'P', words = 'W', done = 'D', failed = 'F' };

inline constexpr std::size_t kHeaderSize = 5;
inline constexpr std::uint32_t kMaxPayload = 1u << 20;
inline constexpr std::size_t kMaxFailureText = 200;
// More audio than this from one job is a runaway (a chunk holds a few thousand characters): the
// helper stops speaking and the server stops reading.
inline constexpr std::size_t kMaxSpeechSeconds = 30 * 60;

struct Frame {
  FrameType type;
  std::string payload;
};

// Collects bytes as they arrive and hands out whole frames. Once a header is bad (an unknown
// type or a length over kMaxPayload) the stream is broken for good: nothing after it is read.
class FrameReader {
 public:
  void feed(std::string_view bytes) {
    if (!broken_) buffer_.append(bytes);  // a broken stream holds nothing more
  }
  // A whole frame, or nothing while one is incomplete or the stream is broken.
  std::optional<Frame> next();
  bool broken() const { return broken_; }
  std::size_t buffered() const { return buffer_.size() - start_; }

 private:
  std::string buffer_;
  std::size_t start_ = 0;
  bool broken_ = false;
};

struct Job {
  Parameters parameters{};
  std::string voice;
  std::string text;
};

std::string frame(FrameType type, std::string_view payload);

std::string encode_job(const Job& job);  // the whole frame
std::optional<Job> decode_job(std::string_view payload);

std::string encode_ready(int sample_rate);
std::optional<int> decode_ready(std::string_view payload);  // 8,000..192,000 Hz

// Whole frames of at most kMaxPayload bytes each, appended to `out`.
void encode_pcm(std::span<const std::int16_t> samples, std::string& out);
bool decode_pcm(std::string_view payload, std::vector<std::int16_t>& out);  // false: odd length

void encode_words(std::span<const WordEvent> words, std::string& out);
bool decode_words(std::string_view payload, std::vector<WordEvent>& out);  // false: not whole events

std::string encode_failed(std::string_view why);
// The helper's reason, if it is printable ASCII of at most kMaxFailureText bytes; else a fixed text.
std::string decode_failed(std::string_view payload);

}  // namespace mediagen::engines::detail::wire
