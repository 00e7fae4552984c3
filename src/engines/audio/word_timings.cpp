#include "mediagen/engines/audio/word_timings.hpp"

#include <nlohmann/json.hpp>

namespace mediagen::engines {

std::string timings_to_json(std::span<const WordTiming> words, bool estimated) {
  std::string out = estimated ? "{\"estimated\":true,\"words\":[" : "[";
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) out += ',';
    out += '[' + std::to_string(words[i].text_offset) + ',' + std::to_string(words[i].text_length) + ',' +
           std::to_string(words[i].start_ms) + ']';
  }
  return out + (estimated ? "]}" : "]");
}

bool timings_estimated(std::string_view json) {
  const auto doc = nlohmann::json::parse(json, nullptr, false);
  if (!doc.is_object()) return false;
  const auto it = doc.find("estimated");
  return it != doc.end() && it->is_boolean() && it->get<bool>();
}

std::optional<std::vector<WordTiming>> timings_from_json(std::string_view json) {
  auto doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_object() && doc.contains("words")) doc = std::move(doc["words"]);
  if (!doc.is_array()) return std::nullopt;
  std::vector<WordTiming> words;
  words.reserve(doc.size());
  for (const auto& w : doc) {
    if (!w.is_array() || w.size() != 3) return std::nullopt;
    for (const auto& v : w) {
      if (!v.is_number_unsigned()) return std::nullopt;
    }
    words.push_back({w[0].get<std::size_t>(), w[1].get<std::size_t>(), w[2].get<std::int64_t>()});
  }
  return words;
}

}  // namespace mediagen::engines
