#pragma once
// Refusals of the ElevenLabs-compatible surface in ElevenLabs' error shape, which its SDK hands to
// the caller as the error's body:
//   {"detail": {"status": "<code>", "message": "..."}}
// Every refusal the pipeline and the order path can give is one ApiError; this maps it:
//   401 -> 401 invalid_api_key (missing, unknown, disabled or expired key)
//   403 -> 403 missing_permissions
//   404 -> 404 voice_not_found, model_not_found or not_found
//   422 validation -> 422 invalid_<field> ("invalid_text", "invalid_output_format"), the
//          message naming the field; 422 domain -> 422 with the reason
//   402 -> 402 with the reason (insufficient_balance, ...): the SDK retries a 429, and retrying a
//          payment refusal only repeats it
//   429 -> 429 with the reason; Retry-After whenever the wait is known
//   409, 413, 405 -> the same status with the reason or "invalid_request"
//   503 -> 503 service_maintenance or service_unavailable; other 5xx -> internal_error
// Extras named "code" (string) set the status code. No other field is shown.
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"

namespace mediagen::compat::elevenlabs {

ApiError voice_not_found(std::string_view voice);
ApiError model_not_found(std::string_view model);

struct ElError {
  int status = 500;
  std::string body;  // JSON text
};
ElError elevenlabs_error(const ApiError& error, Locale locale);

}  // namespace mediagen::compat::elevenlabs
