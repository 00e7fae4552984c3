#pragma once
// The body stage's reading of a JSON body once its bytes are in (stages/body.cpp): pure, so
// that the fuzz targets of the JSON routes read their input exactly as the server does.
#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mediagen/core/api_error.hpp"

namespace mediagen::http::stages {

// Nesting depth of a JSON text, counted without parsing (the parser recurses).
std::size_t json_depth(std::string_view text);

// A string anywhere in a JSON body, value or key, that is not clean text (stages.hpp): 422
// naming its dotted path (task_data.prompt, items.0.text).
std::optional<ApiError> check_json_text(const nlohmann::json& body);

// An empty body is {} (its fields are then "required"); otherwise a Content-Type without "json"
// is 415, nesting over 64 or text that is not JSON 422 on "body", and a string that is not clean
// text (check_json_text) 422 on its path.
Result<nlohmann::json> parse_json_body(std::string_view body, std::optional<std::string_view> content_type);

}  // namespace mediagen::http::stages
