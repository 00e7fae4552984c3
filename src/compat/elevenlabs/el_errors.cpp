#include "el_errors.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"

namespace mediagen::compat::elevenlabs {
namespace {

// The field's name as a code: "voice_settings.speed" -> "invalid_voice_settings_speed".
std::string invalid_code(std::string_view field) {
  std::string code = "invalid_";
  for (char c : field) code += (c == '.' || c == '-' || c == '[' || c == ']') ? '_' : c;
  return code;
}

std::string code_of(const ApiError& e) {
  if (const auto* code = e.extra_string("code")) return *code;
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

}  // namespace mediagen::compat::elevenlabs
