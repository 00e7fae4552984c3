#pragma once
// The bodies of the ElevenLabs-compatible surface, read as ElevenLabs' API reads them (its SDK
// sends snake_case keys and null for an optional field it was handed as undefined, so null is
// "absent" everywhere). Every problem is a 422 naming the field. Pure: no I/O.
//
// POST /v1/text-to-speech/{voice_id}[/stream][/with-timestamps], query output_format:
//   text             string, required, 1..kMaxInputChars code points; <break time="1.5s" /> tags
//                    are pauses (engines/speech/breaks.hpp), and a text of tags only is refused
//   model_id         string: a model of the voice's service ("b-standard" or
//                    "provider_b/b-standard"); absent: the service's default model
//   voice_settings   {stability 0..1, similarity_boost 0..1, style 0..1 (accepted, not honoured),
//                    use_speaker_boost bool, speed 0.7..1.2}
//   seed             integer 0..4294967295 (accepted; the embedded voices are not seedable)
//   previous_text, next_text   strings of at most kMaxContextChars code points: what comes before
//                    and after this text, handed to an upstream provider for continuity
//   language_code    ISO 639-1 (or a BCP 47 tag)
//   output_format    one of engines/output_format.hpp's names; default mp3_44100_128
// Other members are ignored, as ElevenLabs' servers ignore them.
//
// POST /v1/sound-generation: text (the prompt, 1..kMaxPromptChars), duration_seconds 0.5..22
// (ElevenLabs allows 30; this engine makes at most 22), prompt_influence 0..1 (accepted, not
// honoured), loop (ignored), model_id (ignored), and output_format.
// POST /v1/music: prompt (required: composition plans are not supported), music_length_ms
// 5000..300000, seed, force_instrumental and model_id (ignored), and output_format.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/audio/output_format.hpp"

namespace mediagen::compat::elevenlabs {

inline constexpr std::size_t kMaxInputChars = 100'000;
inline constexpr std::size_t kMaxContextChars = 10'000;
inline constexpr std::size_t kMaxPromptChars = 5'000;
inline constexpr std::size_t kMaxIdChars = 255;

struct SpeechBody {
  std::string text;
  std::optional<std::string> model_id;
  engines::VoiceSettings settings;  // style is read and checked, not kept: no voice honours it
  std::optional<std::uint32_t> seed;
  std::optional<std::string> previous_text;
  std::optional<std::string> next_text;
  std::optional<std::string> language_code;
};

struct SoundBody {
  std::string text;
  std::optional<double> duration_seconds;
};

struct MusicBody {
  std::string prompt;
  std::optional<std::int64_t> length_ms;
  std::optional<std::uint32_t> seed;
};

// The query's output_format; absent: mp3_44100_128.
Result<engines::OutputFormat> read_output_format(std::string_view query);

Result<SpeechBody> read_speech_body(const nlohmann::json& body);
Result<SoundBody> read_sound_body(const nlohmann::json& body);
Result<MusicBody> read_music_body(const nlohmann::json& body);

}  // namespace mediagen::compat::elevenlabs
