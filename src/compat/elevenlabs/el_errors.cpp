#include "el_errors.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"

namespace mediagen::compat::elevenlabs {
namespace {

const std::string* extra_string(const ApiError& e, std::string_view key) {
  for (const auto& [k, v] : e.extra) {
    if (k == key) return std::get_if<std::string>(&v);
  }
  return nullptr;
}

std::optional<std::int64_t> extra_int(const ApiError& e, std::string_view key) {
  for (const auto& [k, v] : e.extra) {
    if (k != key) continue;
    if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
  }
  return std::nullopt;
}

// The field's name as a code: "voice_settings.speed" -> "invalid_voice_settings_speed".
std::string invalid_code(std::string_view field) {
  std::string code = "invalid_";
  for (char c : field) code += (c == '.' || c == '-' || c == '[' || c == ']') ? '_' : c;
  return code;
}

std::string code_of(const ApiError& e) {
  if (const auto* code = extra_string(e, "code")) return *code;
  if (e.status == 401) return "invalid_api_key";
  if (e.status == 403 && e.reason == Reason::none) return "missing_permissions";
  if (e.reason != Reason::none) return std::string(to_string(e.reason));
  if (e.status == 404) return "not_found";
  if (e.status == 503) return "service_unavailable";
  if (e.status >= 500) return "internal_error";
  return "invalid_request";
}

}  // namespace

ApiError voice_not_found(std::string_view voice) {
  ApiError e = ApiError::not_found();
  e.message = Message{"validation.voice_unknown", {{"attribute", "voice_id"}, {"service", std::string(voice)}}};
  e.with("code", std::string("voice_not_found"));
  return e;
}

ApiError model_not_found(std::string_view model) {
  ApiError e = ApiError::not_found();
  e.message = Message{"validation.model_unavailable", {{"attribute", "model_id"}, {"service", std::string(model)}}};
  e.with("code", std::string("model_not_found"));
  return e;
}

ElError elevenlabs_error(const ApiError& e, Locale locale) {
  int status = e.status;
  std::string code;
  std::string message;
  if (e.shape == ErrorShape::validation) {
    status = 422;
    const std::string field = e.fields.empty() ? std::string("body") : e.fields.front().field;
    code = invalid_code(field);
    if (!e.fields.empty() && !e.fields.front().messages.empty()) message = render(e.fields.front().messages.front(), locale);
  } else {
    code = code_of(e);
  }
  // The spec's message names X-API-KEY, which this surface does not read.
  if (message.empty() && e.message.key == "auth.api_key.missing") message = "The xi-api-key header is missing.";
  if (message.empty()) message = render(e.message, locale);
  nlohmann::ordered_json detail{{"status", code}, {"message", message}};
  return ElError{.status = status, .body = to_json_text(nlohmann::ordered_json{{"detail", std::move(detail)}})};
}

http::Response elevenlabs_error_response(const ApiError& error, const http::RequestContext& ctx) {
  ElError rendered = elevenlabs_error(error, ctx.locale);
  http::Response r;
  r.status = rendered.status;
  r.headers = error.headers;
  bool has_retry_after = false;
  for (const auto& [k, v] : r.headers) has_retry_after = has_retry_after || k == "Retry-After";
  if (rendered.status == 429 && !has_retry_after) {
    if (auto after = extra_int(error, "retry_after"); after && *after > 0) r.headers.emplace_back("Retry-After", std::to_string(*after));
  }
  r.body = std::move(rendered.body);
  r.close = error.close_connection;
  return r;
}

}  // namespace mediagen::compat::elevenlabs
