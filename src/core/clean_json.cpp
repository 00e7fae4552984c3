#include "mediagen/core/clean_json.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/utf8.hpp"

namespace mediagen {
namespace {

std::string join(const std::string& path, const std::string& part) { return path.empty() ? part : path + "." + part; }

std::optional<std::string> first_unclean(const nlohmann::json& node, const std::string& path) {
  if (node.is_string()) {
    if (!is_clean_text(node.get_ref<const std::string&>())) return path;
  } else if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (!is_clean_text(key)) return path;
      if (auto found = first_unclean(value, join(path, key))) return found;
    }
  } else if (node.is_array()) {
    std::size_t i = 0;
    for (const auto& value : node) {
      if (auto found = first_unclean(value, join(path, std::to_string(i++)))) return found;
    }
  }
  return std::nullopt;
}

}  // namespace

nlohmann::json parse_untrusted_json(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::optional<std::string> unclean_json_field(const nlohmann::json& body) {
  auto found = first_unclean(body, "");
  if (found && found->empty()) return std::string("body");
  return found;
}

}  // namespace mediagen
