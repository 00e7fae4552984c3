#pragma once
// Parsers of what upstream providers send back (bytes from outside: each has a fuzz target in
// tests/fuzz) and the word timings made from it. Pure functions; none throws, whatever the input.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/engines/engine.hpp"
#include "mediagen/engines/upstream.hpp"

namespace mediagen::engines {

// ElevenLabs' answer of /with-timestamps: the audio and, per character of the text, when it starts.
struct TimedSpeech {
  std::string audio;                    // decoded from audio_base64
  std::vector<std::string> characters;  // alignment.characters (one code point each, normally)
  std::vector<double> starts_seconds;   // alignment.character_start_times_seconds
};
// nullopt when the body is not such an object or audio_base64 is missing or not base64; a
// missing or malformed alignment leaves the two lists empty.
std::optional<TimedSpeech> parse_timed_speech(std::string_view json);

// Words of `text` timed by the character alignment: a word starts at its first character's start
// time (ms). nullopt when the characters do not spell `text` (then the caller estimates).
std::optional<std::vector<WordTiming>> words_from_alignment(std::string_view text,
                                                            const std::vector<std::string>& characters,
                                                            const std::vector<double>& starts_seconds);

// Words of `text` spread over duration_ms, each taking a share in proportion to its code points
// plus one (the pause after it). Byte offsets into text; start times non-decreasing.
std::vector<WordTiming> estimate_words(std::string_view text, std::int64_t duration_ms);

// Voice lists: the openai shape ({"voices": ["id", ...]} or {"voices": [{"id"|"voice_id"|"name", ...}]}
// or a bare array, or {"data": [...]}) and ElevenLabs' ({"voices": [{"voice_id", "name",
// "labels": {"gender", "language"}}]}). Entries without a usable id are skipped; at most 1,000.
std::vector<UpstreamVoice> parse_openai_voices(std::string_view json);
std::vector<UpstreamVoice> parse_elevenlabs_voices(std::string_view json);

// What an error body says, for logs and the chunk's detail: the message of the openai
// ({"error": {"message", "code", "type"}}) or ElevenLabs ({"detail": {"status", "message"}} or
// {"detail": "..."}) shape, else the start of the body; at most 200 bytes, cut at a code point.
std::string error_summary(std::string_view body);

// True when an error body refuses the content itself (its code, type, status or message names
// policy, moderation, safety, flagged content or a content refusal).
bool is_content_refusal(std::string_view body);

}  // namespace mediagen::engines
