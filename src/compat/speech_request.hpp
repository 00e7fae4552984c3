#pragma once
// The body of POST /v1/audio/speech, read as OpenAI's API reads it:
//   model            string, required: a template id or a service model (see compat_service.hpp)
//   input            string, required, 1..kMaxInputChars code points (OpenAI caps 4,096; our orders
//                    chunk long texts, so the ceiling is ours)
//   voice            string: a voice id of the model's service; optional with a template
//   response_format  mp3 (default), wav, opus, flac, pcm, aac
//   speed            number 0.25..4.0 (OpenAI's range; refused outside it), default 1.0
//   instructions     string, accepted and ignored (the voices take no style prompt)
//   stream_format    "audio" (default); "sse" is refused: the audio streams as bytes
// Other members are ignored, as OpenAI's servers ignore them. Every problem is a 400 naming the
// field (OpenAI's `param`). Pure: no I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/engines/codec/audio_out.hpp"

namespace mediagen::compat {

inline constexpr std::size_t kMaxInputChars = 100'000;
inline constexpr std::size_t kMaxNameChars = 255;
inline constexpr double kMinSpeed = 0.25;
inline constexpr double kMaxSpeed = 4.0;

enum class AudioFormat { mp3, wav, opus, flac, pcm, aac };
std::string_view to_string(AudioFormat format);
std::optional<AudioFormat> parse_audio_format(std::string_view name);
// The Content-Type of the response body.
std::string_view content_type_of(AudioFormat format);
// OpenAI's formats: mp3 as the chunks made it, pcm and wav at 24 kHz (OpenAI's documented pcm),
// opus (48 kHz), flac and aac (24 kHz).
inline constexpr int kPcmRate = 24000;
engines::AudioOutSpec audio_out_spec(AudioFormat format);

struct SpeechRequest {
  std::string model;
  std::string input;
  std::optional<std::string> voice;
  AudioFormat format = AudioFormat::mp3;
  std::optional<double> speed;  // nullopt: 1.0, the voice's own pace
};

Result<SpeechRequest> read_speech_request(const nlohmann::json& body);

}  // namespace mediagen::compat
