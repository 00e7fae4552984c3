#pragma once
#include "mediagen/core/utf8.hpp"
// Text helpers of the speech engine (internal): UTF-8 checks and turning espeak-ng's word
// events (1-based code point positions) into WordTiming byte offsets.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech/wire.hpp"

namespace mediagen::engines::detail {

// Strict UTF-8 (the project's one check).
using mediagen::is_valid_utf8;

// The code point at `at`; a byte that starts no valid sequence counts as one U+FFFD of its own,
// so malformed text still makes progress.
CodePoint decode_code_point(std::string_view text, std::size_t at);

// Whitespace for the engine: ASCII spaces and controls \t\n\v\f\r, and the Unicode spaces
// U+0085, U+00A0, U+1680, U+2000..U+200B, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF.
bool is_space(char32_t cp);
// True when the (valid UTF-8) text holds nothing but such whitespace.
bool blank(std::string_view text);

// A word event as espeak-ng reports it (and a speech helper passes it on).
using RawWordEvent = wire::WordEvent;

// One timing per word of the text, in order. espeak-ng's events are cleaned up:
//   - positions are converted to byte offsets (the text must be valid UTF-8);
//   - an event pointing at whitespace (espeak does so after abbreviations like "т.е.") moves
//     to the next word; it is dropped when an event of its own points there as well (espeak
//     emits one event per spoken word of an expansion, e.g. an emoji's name);
//   - events inside the previous word (the spoken words of "123.45" or "3/4/2021") are
//     dropped, so each text word is timed once, when it starts to be spoken;
//   - text_length covers espeak's word but stops at whitespace; a moved event covers the
//     following run of non-space characters without trailing punctuation;
//   - start_ms = audio_ms + shift_ms, never decreasing.
std::vector<WordTiming> map_word_events(std::string_view text, std::span<const RawWordEvent> events,
                                        std::int64_t shift_ms);

}  // namespace mediagen::engines::detail
