#pragma once
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
