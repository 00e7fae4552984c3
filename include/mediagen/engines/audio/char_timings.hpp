#pragma once
// Character timings (ElevenLabs' timestamped answers, a tts order's timings.json), built from the
// word timings the engines store per chunk (order_items.timings: each word's byte span in the
// chunk's text and its start on the chunk's own audio time line).
//
// The characters are the text as spoken: each chunk's text (the input after the text rules:
// bracketed text removed, break tags removed, trimmed), the chunks joined by one space. Times
// count from the start of the whole audio, in seconds:
//   - the text is cut at the timed words' starts; the characters of each piece (a word and what
//     follows it up to the next timed word) share the time from its word's start to the next
//     timed word's start evenly; the text before the first timed word shares the time from the
//     chunk's start, and the last piece runs to the chunk's end (its audio's whole length);
//   - a chunk without timings spreads its text evenly over its length;
//   - the space joining two chunks takes no time, at the later chunk's start.
// So the times never go back and the last end is the audio's length.
// Pure functions: no I/O; text that is not valid UTF-8 is taken byte by byte.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/engines/audio.hpp"

namespace mediagen::engines {

struct CharTimes {
  std::vector<std::string> characters;  // one code point each
  std::vector<double> starts;           // seconds
  std::vector<double> ends;
  std::size_t size() const { return characters.size(); }
};

struct ChunkSpeech {
  std::string_view text;
  std::span<const WordTiming> words;
  std::int64_t offset_ms = 0;    // where the chunk starts in the whole audio
  std::int64_t duration_ms = 0;  // of the chunk's audio
};

// Appends the chunk's characters; `joined` puts the joining space first.
void align_chunk(const ChunkSpeech& chunk, bool joined, CharTimes& out);

// {"characters":[...],"character_start_times_seconds":[...],"character_end_times_seconds":[...]}
// of the characters [from, to).
std::string alignment_json(const CharTimes& times, std::size_t from, std::size_t to);

}  // namespace mediagen::engines
