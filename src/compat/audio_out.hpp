#pragma once
// The chunks' audio in the format a speech request asked for, produced piece by piece as the
// chunks' MP3 streams are fed in order (each chunk's stream is bare MPEG frames, so the streams
// of consecutive chunks are one valid stream):
//   mp3   the bytes as they come;
//   pcm   raw signed 16-bit little-endian mono at 24 kHz (OpenAI's documented pcm);
//   wav   the same behind a WAV header whose sizes say "unknown" (0xFFFFFFFF), as OpenAI streams;
//   opus  Ogg Opus (48 kHz), flac (24 kHz), aac (ADTS, 24 kHz): libavcodec encoders writing
//         through libavformat into memory that each feed() hands out.
// Memory stays bounded by one fed piece and one encoder frame. Broken input (bytes that do not
// decode) gives nullopt, never a crash. One instance belongs to one stream.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/engines/audio/output_format.hpp"
#include "speech_request.hpp"

namespace mediagen::compat {

inline constexpr int kPcmRate = 24000;

class AudioOut {
 public:
  virtual ~AudioOut() = default;
  // What can be sent after these MP3 bytes (may be empty); nullopt when the audio is unusable.
  virtual std::optional<std::string> feed(std::string_view mp3) = 0;
  // The rest, once every chunk was fed (decoders and encoders flushed, the container closed).
  virtual std::optional<std::string> finish() = 0;
};

// nullptr when this build's libavcodec lacks the encoder (the request is then refused).
std::unique_ptr<AudioOut> make_audio_out(AudioFormat format);

// The same for ElevenLabs' names (engines/output_format.hpp): mp3 re-encoded by LAME at the
// format's rate and bitrate, pcm at its rate, ulaw as raw G.711 at 8 kHz, opus as Ogg Opus.
std::unique_ptr<AudioOut> make_audio_out(const engines::OutputFormat& format);

// The 44-byte header of a 16-bit PCM WAV with unknown length.
std::string streaming_wav_header(int sample_rate, int channels);

}  // namespace mediagen::compat
