#pragma once
// Subtitles (SRT and WebVTT) for a stitched speech track, from the chunks' texts and word timings.
//
// Input: one TimedText per chunk, in track order. offset_ms is where the chunk starts in the
// track (the sum of the previous chunks' MP3 durations); words are the engine's timings on the
// chunk's own MP3 time line (Audio::words); text_offset/text_length are byte positions in text.
//
// Cues. A cue holds consecutive words of one chunk and never crosses a chunk. A new cue starts
// after a sentence end (. ! ? … and the CJK 。！？, also before closing quotes or brackets; not
// after an initial or a title such as "Mr.", nor when the next word is in lower case), when
// the text would no longer fit in kSubtitleMaxLines lines of kSubtitleLineCodePoints code points
// (lines break at spaces, or between words of a script written without spaces), or when it would
// last longer than kSubtitleMaxCueMs. A word longer than a line is cut into line-long pieces.
// The cue text is the chunk's own text from the first word to the end of the last (punctuation
// kept), whitespace runs collapsed to one space. A word espeak-ng did not time ("a" spoken with
// the next word) is shown with the next timed word; text after the last timed word joins the last
// cue; a chunk with no timings at all is spread evenly over its duration.
//
// Times. A cue starts when its first word starts and ends when the next cue of the chunk starts,
// or at the chunk's end (offset_ms + duration_ms), but lasts at most kSubtitleMaxCueMs. Cues never
// overlap, never go backwards and never pass the end of the track (the last chunk's end).
//
// Pure functions: no I/O, never fail; text that is not valid UTF-8 is treated byte by byte.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/engines/engine.hpp"

namespace mediagen::engines {

inline constexpr int kSubtitleLineCodePoints = 42;
inline constexpr int kSubtitleMaxLines = 2;
inline constexpr std::int64_t kSubtitleMaxCueMs = 6000;

struct TimedText {
  std::string_view text;
  std::span<const WordTiming> words;
  std::int64_t offset_ms = 0;
  std::int64_t duration_ms = 0;
  bool estimated = false;  // the words' times were estimated from the text, not given by the engine
};

struct SubtitleCue {
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
  std::string text;  // UTF-8, one or two lines joined by '\n', never empty

  bool operator==(const SubtitleCue&) const = default;
};

// The cues of the whole track, in order.
std::vector<SubtitleCue> subtitle_cues(std::span<const TimedText> chunks);

// "1\n00:00:01,234 --> 00:00:02,345\ntext\n\n" per cue; "" when there are no cues.
std::string render_srt(std::span<const TimedText> chunks);

// When a chunk's timings were estimated, a NOTE block after the header says so
// ("NOTE word timings: estimated"), so a reader knows the cues follow the text's length, not the voice.
// "WEBVTT\n\n" then "00:00:01.234 --> 00:00:02.345\ntext\n\n" per cue, with & < > escaped.
std::string render_webvtt(std::span<const TimedText> chunks);

}  // namespace mediagen::engines
