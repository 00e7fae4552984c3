#pragma once
// The one error value: every refusal the API gives is an ApiError built by a named constructor,
// so its HTTP status and body shape are fixed where it is made (spec section 7.1).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/message.hpp"

namespace mediagen {

enum class ErrorShape {
  auth,        // {success:false, message, data:null}            401, permission 403
  plain,       // {success:false, message}                       404, 405, 413, 5xx
  domain,      // {success:false, message, reason, error_code, ...extra}
  validation,  // {message, errors:{field:[...]}}                422, no "success"
};

enum class Reason {
  none,
  endpoint_not_found,
  ip_banned,
  rate_limit_exceeded,
  token_quota_exceeded,
  limit_exceeded,
  concurrency_limit_exceeded,
  policy_cooldown_active,
  insufficient_balance,
  insufficient_funds,
  insufficient_allowance,
  no_subscription,
  payg_topup_required,
  template_access_denied,
  not_reseller,
  gift_code_not_found,
  quote_mismatch,
  active_retry_exists,
  stitch_in_progress,
  gift_code_cancel_window_expired,
  gift_code_not_cancellable,
  invalid_order_status,
  invalid_status,
  max_attempts_reached,
  generative_not_supported,
  nothing_to_retry,
  text_over_capacity,
  content_blocked,
  input_expired,
  retry_config_outdated,
  service_not_found,
  template_model_outdated,
  source_file_required,
  source_file_unsupported,
  service_maintenance,
  // Beyond the spec: an Idempotency-Key reused with a different request (409).
  idempotency_key_reused,
  // Beyond the spec, in the 429 family: the client address used up its lookups of unknown keys
  // for this minute (MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE).
  too_many_unknown_keys,
};

std::string_view to_string(Reason reason);

// The HTTP status of a refusal with this reason (spec 7.1 and 8.1); 400 for Reason::none.
int status_of(Reason reason) noexcept;

// Values an error may add to its body; times are rendered in the request's time zone.
using ExtraValue = std::variant<std::nullptr_t, bool, std::int64_t, std::string,
                                std::vector<std::int64_t>, TimePoint, Message>;

struct FieldError {
  std::string field;
  std::vector<Message> messages;
};

struct ApiError {
  int status = 500;
  ErrorShape shape = ErrorShape::plain;
  Reason reason = Reason::none;
  Message message;
  std::vector<FieldError> fields;                           // validation only
  std::vector<std::pair<std::string, ExtraValue>> extra;    // body fields after reason
  std::vector<std::pair<std::string, std::string>> headers; // Retry-After, Allow, ...
  bool with_english_message = false;  // adds message_en (endpoint_not_found)
  bool close_connection = false;
  std::string internal;  // for logs only, never rendered

  // 401 and 403: the authentication shape of section 5.
  static ApiError api_key_missing();
  static ApiError api_key_invalid();
  static ApiError api_key_expired();
  static ApiError permission_denied(std::string_view scope);
  static ApiError forbidden();  // the object belongs to another user

  static ApiError not_found();
  static ApiError endpoint_not_found(std::string_view method, std::string_view path,
                                     std::string docs, std::string developers,
                                     std::int64_t misses_left, std::int64_t threshold,
                                     std::int64_t window_minutes);
  static ApiError method_not_allowed(std::string allow);
  static ApiError payload_too_large();
  static ApiError header_too_large();
  static ApiError bad_request();
  static ApiError path_not_text();  // 400: the decoded path is not UTF-8 text without controls
  static ApiError unsupported_media_type();
  static ApiError internal_error(std::string internal_detail);
  static ApiError unavailable(std::string internal_detail);

  static ApiError ip_banned(TimePoint banned_until, std::int64_t retry_after, std::int64_t step,
                            std::vector<std::int64_t> ladder_seconds);
  static ApiError rate_limited(std::int64_t retry_after);
  // 429 too_many_unknown_keys: before any lookup; with retry_after and Retry-After.
  static ApiError too_many_unknown_keys(std::int64_t retry_after);
  // 429 token_quota_exceeded (spec 8.1): a token window of the key ("per_minute" ... "per_month")
  // has no room for `requested` until reset_at; with Retry-After.
  static ApiError token_window_exceeded(std::string window, std::int64_t limit, std::int64_t used,
                                        std::int64_t requested, TimePoint reset_at, std::int64_t retry_after);
  // 429 token_quota_exceeded with window "quota": the key's pool never resets, so reset_at and
  // retry_after are null and there is no Retry-After.
  static ApiError token_pool_exhausted(std::int64_t limit, std::int64_t used, std::int64_t requested);

  // 422 with one field; add more with add_field.
  static ApiError validation(std::string field, Message message);
  ApiError& add_field(std::string field, Message message);

  // A business refusal of section 7.1: its status comes from the reason (status_of, the spec's
  // table in one place) and its message from "errors.<reason>".
  static ApiError refused(Reason reason);
  // The refusals whose status is not the reason's alone (spec 7.1).
  static ApiError retry_config_outdated_on_order();  // 400 on order-level retry, 422 elsewhere
  static ApiError order_not_cancellable();           // 400 with only a message


  ApiError& with(std::string key, ExtraValue value) {
    extra.emplace_back(std::move(key), std::move(value));
    return *this;
  }

  // The extra named `key` when it holds that type (another API's renderer reads them); else none.
  const std::string* extra_string(std::string_view key) const {
    for (const auto& [k, v] : extra) {
      if (k == key) return std::get_if<std::string>(&v);
    }
    return nullptr;
  }
  std::optional<std::int64_t> extra_int(std::string_view key) const {
    for (const auto& [k, v] : extra) {
      if (k != key) continue;
      if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
    }
    return std::nullopt;
  }
};

template <class T>
using Result = boost::system::result<T, ApiError>;

// Needed by boost::system::result<T, ApiError>::value(): an error escapes as the ApiError itself.
[[noreturn]] void throw_exception_from_error(const ApiError& e, const boost::source_location& loc);

}  // namespace mediagen
