#pragma once
// orders.engine_request, resolved at order creation so workers never read the catalogue:
// {"engine": "espeak" | "none" | ..., "voice", "variant", "language",
//  "settings": {"stability", "similarity_boost", "speed", "use_speaker_boost"}}.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/engines/engine.hpp"

namespace mediagen::workers::detail {

struct EngineRequest {
  std::string engine;
  engines::SpeechRequest speech;  // text left empty
};

// nullopt when the JSON is not an object with a string "engine" or a field has the wrong type.
std::optional<EngineRequest> parse_engine_request(std::string_view json);

}  // namespace mediagen::workers::detail
