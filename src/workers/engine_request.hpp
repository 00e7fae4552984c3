#pragma once
// orders.engine_request, resolved at order creation so workers never read the catalogue:
// speech: {"engine": "espeak", "voice", "variant", "language",
//          "settings": {"stability", "similarity_boost", "speed", "use_speaker_boost"},
//          "profile": a voice clone's engines::VoiceProfile (optional),
//          "previous_text", "next_text": what the caller said comes before and after the whole
//          text (optional; the first chunk's and the last chunk's outer neighbours),
//          "breaks": true when <break time=".."/> tags are pauses (the ElevenLabs surface)};
// sfx, music: {"engine": "sfx" | "music", "task_type", "duration_ms", "seed"};
// voice_search: {"engine": "voice_search", "upload": <storage key>, "top"};
// "openai" | "elevenlabs" (an upstream provider): the speech or prompt fields above plus
//          "upstream": {"service", "url", "model", "key_env", "key_file", "voice"} (never a key);
// "none" (or any other name): a service without an engine.
// Any of them may carry "output_format": the order's (POST /orders), an ElevenLabs name.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/audio/output_format.hpp"
#include "mediagen/engines/prompt.hpp"
#include "mediagen/engines/upstream.hpp"

namespace mediagen::workers::detail {

struct EngineRequest {
  std::string engine;
  engines::SpeechRequest speech;  // text left empty
  engines::PromptRequest prompt;  // prompt left empty; seed is the order's (variant 0)
  std::string upload;             // voice_search: the stored sample
  std::int64_t top = 10;          // voice_search: how many voices
  std::optional<engines::UpstreamTarget> upstream;  // the upstream engines
  std::optional<engines::OutputFormat> output_format;  // the chunk's file in it; nullopt: the MP3
};

// nullopt when the JSON is not an object with a string "engine" or a field has the wrong type.
std::optional<EngineRequest> parse_engine_request(std::string_view json);

// Whether the engine of this request takes a chunk's neighbours (an upstream of ElevenLabs' shape).
bool takes_neighbours(std::string_view json);

}  // namespace mediagen::workers::detail
