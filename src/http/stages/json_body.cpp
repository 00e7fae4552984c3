#include "json_body.hpp"

#include "mediagen/core/clean_json.hpp"

namespace mediagen::http::stages {

namespace {
constexpr std::size_t kMaxJsonDepth = 64;
}

std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') deepest = std::max(deepest, ++depth);
    else if ((c == '}' || c == ']') && depth > 0) --depth;
  }
  return deepest;
}

std::optional<ApiError> check_json_text(const nlohmann::json& body) {
  auto field = unclean_json_field(body);
  if (!field) return std::nullopt;
  Message m{"validation.clean_text", {{"attribute", *field}}};
  return ApiError::validation(std::move(*field), std::move(m));
}

Result<nlohmann::json> parse_json_body(std::string_view body, std::optional<std::string_view> content_type) {
  // nlohmann::json converts to almost anything, so the result is built by name.
  using Parsed = Result<nlohmann::json>;
  if (body.empty()) return Parsed(boost::system::in_place_value, nlohmann::json::object());
  if (content_type && content_type->find("json") == std::string_view::npos) return ApiError::unsupported_media_type();
  if (json_depth(body) > kMaxJsonDepth) return ApiError::validation("body", Message{"validation.too_deep"});
  auto parsed = parse_untrusted_json(body);
  if (parsed.is_discarded()) return ApiError::validation("body", Message{"validation.invalid_json"});
  if (auto refusal = check_json_text(parsed)) return std::move(*refusal);
  return Parsed(boost::system::in_place_value, std::move(parsed));
}

}  // namespace mediagen::http::stages
