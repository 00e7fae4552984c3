#pragma once
// ASCII letter case, independent of the C locale: protocol tokens, ids, tags and extensions
// compare without case, and bytes outside A-Z (UTF-8 included) are left as they are.
#include <string>
#include <string_view>

namespace mediagen {

constexpr char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

constexpr bool iequals_ascii(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

constexpr bool istarts_with_ascii(std::string_view text, std::string_view prefix) noexcept {
  return text.size() >= prefix.size() && iequals_ascii(text.substr(0, prefix.size()), prefix);
}

}  // namespace mediagen
