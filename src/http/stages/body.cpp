#include "mediagen/core/clean_json.hpp"
#include "stages.hpp"

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

awaitable<Result<void>> read_body(RequestContext& ctx, Exchange& exchange, std::optional<nlohmann::json>& json) {
  const Route& route = *ctx.route;
  auto status = co_await exchange.read_body(route.body_limit);
  if (status == BodyStatus::too_large) co_return ApiError::payload_too_large();
  if (status == BodyStatus::failed) co_return ApiError::bad_request();
  if (!route.json_body) co_return Result<void>{};
  std::string_view body = ctx.request.body();
  if (body.empty()) {
    json.emplace(nlohmann::json::object());  // an empty body is an empty object: fields are then "required"
  } else {
    if (auto type = ctx.request.header("Content-Type"); type && type->find("json") == std::string_view::npos) {
      co_return ApiError::unsupported_media_type();
    }
    if (json_depth(body) > kMaxJsonDepth) co_return ApiError::validation("body", Message{"validation.too_deep"});
    auto parsed = parse_untrusted_json(body);
    if (parsed.is_discarded()) co_return ApiError::validation("body", Message{"validation.invalid_json"});
    if (auto refusal = check_json_text(parsed)) co_return std::move(*refusal);
    json.emplace(std::move(parsed));
  }
  ctx.json = &*json;
  co_return Result<void>{};
}

}  // namespace mediagen::http::stages
