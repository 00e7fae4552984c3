#pragma once
// Audio in the format a caller asked for, produced piece by piece as MP3 streams are fed in order
// (the chunks' streams are bare MPEG frames, so the streams of consecutive chunks are one valid
// stream): what the compatible surfaces send, what a tts order's track and chunk files become in
// its output format, and what a sound effect or a piece of music becomes.
//   mp3_as_is  the bytes as they come;
//   pcm        raw signed 16-bit little-endian mono at the spec's rate;
//   wav        the same behind a WAV header whose sizes say "unknown" (0xFFFFFFFF), as OpenAI streams;
//   ulaw       raw G.711 mu-law mono;
//   mp3        re-encoded by LAME (libmp3lame) at the rate and bitrate, bare frames;
//   opus, flac, aac   Ogg Opus, FLAC, ADTS AAC.
// The encoders are libavcodec's, writing through libavformat into memory that each feed() hands
// out. Memory stays bounded by one fed piece and one encoder frame. Broken input (bytes that do
// not decode) gives nullopt, never a crash. One instance belongs to one stream. The output is
// mono: the input's channels are mixed down.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/engines/audio/output_format.hpp"

namespace mediagen::engines {

class AudioOut {
 public:
  virtual ~AudioOut() = default;
  // What can be sent after these MP3 bytes (may be empty); nullopt when the audio is unusable.
  virtual std::optional<std::string> feed(std::string_view mp3) = 0;
  // The rest, once every stream was fed (decoders and encoders flushed, the container closed).
  virtual std::optional<std::string> finish() = 0;
};

enum class AudioOutKind { mp3_as_is, pcm, wav, ulaw, mp3, opus, flac, aac };

struct AudioOutSpec {
  AudioOutKind kind = AudioOutKind::mp3_as_is;
  int sample_rate = 24000;
  int bitrate_kbps = 0;  // mp3, opus, aac; 0 for the others
};

// nullptr when this build's libavcodec lacks the encoder (the request is then refused).
std::unique_ptr<AudioOut> make_audio_out(const AudioOutSpec& spec);

// ElevenLabs' names (audio/output_format.hpp): mp3 re-encoded at the format's rate and bitrate,
// pcm at its rate, ulaw as raw G.711 at 8 kHz, opus as Ogg Opus.
std::unique_ptr<AudioOut> make_audio_out(const OutputFormat& format);

// The 44-byte header of a 16-bit PCM WAV with unknown length.
std::string streaming_wav_header(int sample_rate, int channels);

}  // namespace mediagen::engines
