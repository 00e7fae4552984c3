#include "mediagen/engines/prompt.hpp"

#include "mediagen/core/utf8.hpp"

namespace mediagen::engines {
namespace {

// The lower-case form of a letter or digit, or 0 for a separator.
char32_t word_char(char32_t c) {
  if ((c >= U'a' && c <= U'z') || (c >= U'0' && c <= U'9')) return c;
  if (c >= U'A' && c <= U'Z') return c + 32;
  if (c >= U'а' && c <= U'я') return c;
  if (c >= U'А' && c <= U'Я') return c + 32;
  if (c == U'ё' || c == U'Ё') return U'е';
  return 0;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else {  // every word character above ASCII is Cyrillic: two bytes
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

std::vector<std::string> prompt_words(std::string_view utf8) {
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (!word.empty() && words.size() < kMaxPromptWords) words.push_back(std::move(word));
    word.clear();
  };
  while (!utf8.empty() && words.size() < kMaxPromptWords) {
    const auto cp = decode_utf8(utf8);
    const std::size_t length = cp ? cp->length : 1;
    utf8.remove_prefix(length);
    const char32_t c = cp ? word_char(cp->value) : 0;
    if (c == 0) {
      flush();
    } else if (word.size() + 2 <= kMaxPromptWordBytes) {
      append_utf8(word, c);
    }
  }
  flush();
  return words;
}

bool has_stem(const std::vector<std::string>& words, std::string_view stem) {
  for (const auto& w : words) {
    if (w.starts_with(stem)) return true;
  }
  return false;
}

}  // namespace mediagen::engines
