#include "json_fields.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/utf8.hpp"

namespace mediagen::compat {
namespace {

using nlohmann::json;

Message field_message(const char* key, std::string_view field) { return Message{key, {{"attribute", std::string(field)}}}; }

}  // namespace

const json* member(const json& body, std::string_view name) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<std::string>> read_string(const json& body, std::string_view field, std::size_t max, bool required) {
  const json* value = member(body, field);
  if (!value) {
    if (required) return ApiError::validation(std::string(field), field_message("validation.required", field));
    return std::optional<std::string>{};
  }
  if (!value->is_string()) return ApiError::validation(std::string(field), field_message("validation.string", field));
  const auto& text = value->get_ref<const std::string&>();
  if (text.empty()) return ApiError::validation(std::string(field), field_message("validation.required", field));
  if (count_code_points(text) > max) {
    return ApiError::validation(std::string(field), Message{"validation.max_string",
                                                            {{"attribute", std::string(field)}, {"max", std::to_string(max)}}});
  }
  return std::optional<std::string>{text};
}

}  // namespace mediagen::compat
