#include "mediagen/workers/content_check.hpp"

namespace mediagen::workers {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Letters, digits and every byte of a multi-byte UTF-8 character: a term next to one of them is
// part of a longer word ("class" in "classic", "кот" in "котик").
bool is_word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || c == '_';
}

bool matches_at(std::string_view text, std::size_t at, std::string_view term) {
  for (std::size_t i = 0; i < term.size(); ++i) {
    if (lower(text[at + i]) != lower(term[i])) return false;
  }
  return true;
}

}  // namespace

bool contains_term(std::string_view text, std::string_view term) {
  if (term.empty() || term.size() > text.size()) return false;
  for (std::size_t at = 0; at + term.size() <= text.size(); ++at) {
    if (!matches_at(text, at, term)) continue;
    const bool starts_word = at == 0 || !is_word_byte(text[at - 1]) || !is_word_byte(term.front());
    const std::size_t end = at + term.size();
    const bool ends_word = end == text.size() || !is_word_byte(text[end]) || !is_word_byte(term.back());
    if (starts_word && ends_word) return true;
  }
  return false;
}

ContentVerdict check_content(std::string_view text, const ContentRules& rules) {
  for (const auto& term : rules.policy_terms) {
    if (contains_term(text, term)) return ContentVerdict::policy_flagged;
  }
  if (!rules.fail_marker.empty() && text.find(rules.fail_marker) != std::string_view::npos) {
    return ContentVerdict::fault_drill;
  }
  return ContentVerdict::ok;
}

}  // namespace mediagen::workers
