#pragma once
// Refusals of the OpenAI-compatible surface in OpenAI's error shape, which its SDKs read:
//   {"error": {"message": "...", "type": "...", "param": null | "field", "code": null | "..."}}
// Every refusal the pipeline and the order path can give is one ApiError; this maps it:
//   401 -> 401 invalid_request_error / invalid_api_key (missing, unknown, expired key)
//   403 -> 403 permission_error / missing_scope (or template_access_denied)
//   422 validation -> 400 invalid_request_error, param = the field (OpenAI has no 422)
//   422 domain     -> 400 invalid_request_error, code = the reason
//   402 -> 402 insufficient_quota, code = the reason (kept 402: OpenAI's SDKs retry a 429,
//          and retrying a payment refusal only repeats it)
//   429 -> 429 type "tokens" for token windows, "requests" for the rest; code = the reason;
//          Retry-After whenever the wait is known (windows, cooldown, request rate, ban)
//   404 -> 404 invalid_request_error (model_not_found, voice_not_found, not_found)
//   409, 413, 405 -> the same status, invalid_request_error
//   503 -> 503 server_error (service_maintenance, or unavailable)
//   5xx -> server_error
// Extras of an ApiError named "param" and "code" (strings) set those members; no other extra
// field is shown.
#include <string>
#include <utility>
#include <vector>

#include "mediagen/core/api_error.hpp"

namespace mediagen::compat {

// 404 for a model or voice the caller cannot use (code model_not_found / voice_not_found).
ApiError model_not_found(std::string_view model);
ApiError voice_not_found(std::string_view voice);
// 400 for a field OpenAI's API would refuse (param = field).
ApiError invalid_field(std::string field, Message message);

struct OpenAiError {
  int status = 500;
  std::string body;  // JSON text
  std::vector<std::pair<std::string, std::string>> headers;
};
OpenAiError openai_error(const ApiError& error, Locale locale);

}  // namespace mediagen::compat
