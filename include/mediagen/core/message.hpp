#pragma once
// A user-facing text: a catalogue key plus named parameters, rendered per locale at the edge.
#include <string>
#include <utility>
#include <vector>

namespace mediagen {

enum class Locale { en, ru };

struct Message {
  std::string key;
  std::vector<std::pair<std::string, std::string>> params;

  Message() = default;
  Message(std::string k) : key(std::move(k)) {}  // NOLINT: implicit from a key is the common case
  Message(std::string k, std::vector<std::pair<std::string, std::string>> p)
      : key(std::move(k)), params(std::move(p)) {}
};

// Parses an X-Locale value ("ru", "ru-RU", "en_US", ...); anything unknown is English.
Locale parse_locale(std::string_view header);
std::string_view locale_code(Locale locale);

// Renders a catalogue message; an unknown key renders as the key itself (and is a bug to fix).
std::string render(const Message& message, Locale locale);

}  // namespace mediagen
