#pragma once
// Word timings as order_items.timings stores them: [[byte offset, byte length, start ms], ...]
// on the chunk's own MP3 time line. Compact, and enough to rebuild subtitles at stitching.
// Timings estimated from the text (an upstream that gives none) are stored as
// {"estimated": true, "words": [...]}, so the subtitles can say so.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/engines/audio.hpp"

namespace mediagen::engines {

std::string timings_to_json(std::span<const WordTiming> words, bool estimated = false);

// True for the {"estimated": true, ...} form.
bool timings_estimated(std::string_view json);

// nullopt when the JSON is not an array of three non-negative integers each.
std::optional<std::vector<WordTiming>> timings_from_json(std::string_view json);

}  // namespace mediagen::engines
