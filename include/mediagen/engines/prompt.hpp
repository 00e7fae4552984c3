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

#include "mediagen/engines/audio.hpp"

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

// The words of a sound-effect or music prompt, as the engines' tables match them. A prompt is
// English or Russian free text from a client: the words are its runs of letters and digits,
// lower-cased (Latin and Cyrillic; ё is read as е), everything else a separator, bytes that are
// not valid UTF-8 included. Never fails, for any bytes.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::engines {

inline constexpr std::size_t kMaxPromptWords = 64;      // further words are not read
inline constexpr std::size_t kMaxPromptWordBytes = 64;  // a longer run is cut at a code point

std::vector<std::string> prompt_words(std::string_view utf8);

// Whether some word starts with `stem`: a stem matches the inflections of a Russian word
// ("дожд" finds "дождь" and "дождя") and the plurals of an English one ("bell" finds "bells").
bool has_stem(const std::vector<std::string>& words, std::string_view stem);

}  // namespace mediagen::engines
