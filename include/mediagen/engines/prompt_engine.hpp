#pragma once
// Engines that make audio from a prompt: sound effects and music. The same contract as speech
// (engine.hpp): a request in, a complete MP3 or a failure of one of two kinds out, callable from
// any number of worker threads at once.
//
// Determinism: the same request (prompt, duration, seed) gives the same MP3 bytes, in any
// process, on any thread. A music order's variants are the same prompt under different seeds.
//
// Length: duration_ms is what a decoder plays (every frame, encoder delay and padding
// included), within 2 % or 15 ms of the request, whichever is larger.
#include <cstdint>
#include <optional>
#include <string>

#include <boost/system/result.hpp>

#include "mediagen/engines/engine.hpp"

namespace mediagen::engines {

struct PromptRequest {
  std::string prompt;                       // UTF-8, English or Russian; words it does not know are ignored
  std::optional<std::int64_t> duration_ms;  // nullopt: the engine's default for the prompt
  std::uint64_t seed = 0;
};

class PromptEngine {
 public:
  virtual ~PromptEngine() = default;
  // Audio::words stays empty.
  virtual boost::system::result<Audio, EngineFailure> generate(const PromptRequest&) = 0;
};

}  // namespace mediagen::engines
