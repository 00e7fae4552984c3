#include "openai_errors.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"

namespace mediagen::compat {
namespace {

bool has_header(const std::vector<std::pair<std::string, std::string>>& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (k == name) return true;
  }
  return false;
}

struct Kind {
  int status;
  const char* type;
};

Kind kind_of(const ApiError& e) {
  if (e.shape == ErrorShape::validation) return {400, "invalid_request_error"};
  switch (e.status) {
    case 401: return {401, "invalid_request_error"};
    case 403: return {403, "permission_error"};
    case 402: return {402, "insufficient_quota"};
    case 422: return {400, "invalid_request_error"};
    case 429: return {429, e.reason == Reason::token_quota_exceeded ? "tokens" : "requests"};
    default: break;
  }
  if (e.status >= 500) return {e.status, "server_error"};
  return {e.status, "invalid_request_error"};
}

std::string code_of(const ApiError& e) {
  if (const auto* code = e.extra_string("code")) return *code;
  if (e.reason != Reason::none) return std::string(to_string(e.reason));
  if (e.status == 401) return "invalid_api_key";
  if (e.status == 403) return "missing_scope";
  if (e.status == 404) return "not_found";
  return {};
}

}  // namespace

ApiError model_not_found(std::string_view model) {
  ApiError e = ApiError::not_found();
  e.message = Message{"validation.model_unavailable", {{"attribute", "model"}, {"service", std::string(model)}}};
  e.with("code", std::string("model_not_found")).with("param", std::string("model"));
  return e;
}

ApiError voice_not_found(std::string_view voice) {
  ApiError e = ApiError::not_found();
  e.message = Message{"validation.voice_unknown", {{"attribute", "voice"}, {"service", std::string(voice)}}};
  e.with("code", std::string("voice_not_found")).with("param", std::string("voice"));
  return e;
}

ApiError invalid_field(std::string field, Message message) { return ApiError::validation(std::move(field), std::move(message)); }

OpenAiError openai_error(const ApiError& e, Locale locale) {
  const Kind kind = kind_of(e);
  nlohmann::ordered_json error;
  std::string message;
  nlohmann::json param = nullptr;
  if (e.shape == ErrorShape::validation && !e.fields.empty()) {
    param = e.fields.front().field;
    if (!e.fields.front().messages.empty()) message = render(e.fields.front().messages.front(), locale);
  }
  // The spec's message names X-API-KEY, which this surface does not read.
  if (message.empty() && e.message.key == "auth.api_key.missing") message = render(Message{"auth.bearer.missing"}, locale);
  if (message.empty()) message = render(e.message, locale);
  if (const auto* p = e.extra_string("param")) param = *p;
  const std::string code = code_of(e);
  error["message"] = message;
  error["type"] = kind.type;
  error["param"] = param;
  error["code"] = code.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(code);
  OpenAiError out{.status = kind.status, .body = to_json_text(nlohmann::ordered_json{{"error", std::move(error)}})};
  out.headers = e.headers;
  if (kind.status == 429 && !has_header(out.headers, "Retry-After")) {
    if (auto after = e.extra_int("retry_after"); after && *after > 0) out.headers.emplace_back("Retry-After", std::to_string(*after));
  }
  return out;
}

}  // namespace mediagen::compat
