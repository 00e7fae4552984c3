#pragma once
// ElevenLabs' pause tag, honoured in texts that come through the ElevenLabs-compatible surface
// (an order's engine_request "breaks": true); everywhere else angle-bracket tags are spoken, as
// the spec's text rules say.
//
// A tag is `<break time="1.5s" />`: "break" and "time" in any case, the value in double or single
// quotes as a decimal number of seconds ("s") or milliseconds ("ms"), spaces allowed around "=",
// before "/>" and none or more between "break" and "time". The pause is at most kMaxBreakMs, as
// ElevenLabs caps it; a longer one is cut to it. Anything else is text.
//
// Speaking a text with tags: the text between them is spoken piece by piece, with the pauses
// between the pieces (speak_with_breaks). Its word timings keep pointing into the whole text.
// Pure functions: no I/O; text that is not UTF-8 is scanned byte by byte (tags are ASCII).
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::engines {

inline constexpr std::int64_t kMaxBreakMs = 3000;

struct BreakTag {
  std::size_t offset = 0;  // byte offset of '<'
  std::size_t length = 0;  // bytes up to and including "/>"
  std::int64_t ms = 0;     // the pause, 0..kMaxBreakMs
};

// The tags of `text`, in order, never overlapping.
std::vector<BreakTag> find_breaks(std::string_view text);

// The text as spoken: the tags removed, and word offsets into the text mapped onto it (a word
// that starts inside a tag is dropped).
struct SpokenText {
  std::string text;
  std::vector<WordTiming> words;
};
SpokenText without_breaks(std::string_view text, std::span<const WordTiming> words);

// Speaks the pieces of request.text between its tags with `speak`, joined by the pauses as
// silence; a text without tags is spoken whole. The words point into request.text and lie on the
// joined PCM's time line. Pieces of white space only are not spoken (their pause still is).
using SpeakPiece = std::function<boost::system::result<SpeechPcm, EngineFailure>(const SpeechRequest&)>;
boost::system::result<SpeechPcm, EngineFailure> speak_with_breaks(const SpeechRequest& request, const SpeakPiece& speak);
// speak_with_breaks when request.breaks, else `speak` of the whole text (tags are text).
boost::system::result<SpeechPcm, EngineFailure> speak_with_breaks_if(const SpeechRequest& request, const SpeakPiece& speak);

}  // namespace mediagen::engines
