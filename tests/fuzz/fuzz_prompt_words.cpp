// Prompt words (include/mediagen/engines/prompt_words.hpp) on any bytes. Properties: at most
// kMaxPromptWords words, each non-empty, valid UTF-8, at most kMaxPromptWordBytes bytes, made
// only of lower-case letters and digits (so a second pass returns the same words).
#include <string_view>

#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/prompt.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mediagen::engines;
  const std::string_view input = mediagen::fuzz::as_text(data, size);
  const auto words = prompt_words(input);
  FUZZ_CHECK(words.size() <= kMaxPromptWords);
  std::string joined;
  for (const auto& w : words) {
    FUZZ_CHECK(!w.empty() && w.size() <= kMaxPromptWordBytes);
    FUZZ_CHECK(mediagen::is_valid_utf8(w));
    FUZZ_CHECK(has_stem(words, w));
    joined += w + ' ';
  }
  FUZZ_CHECK(prompt_words(joined) == words);
  return 0;
}
