#include "mediagen/core/api_error.hpp"

namespace mediagen {

std::string_view to_string(Reason reason) {
  switch (reason) {
    case Reason::none: return "";
    case Reason::endpoint_not_found: return "endpoint_not_found";
    case Reason::ip_banned: return "ip_banned";
    case Reason::rate_limit_exceeded: return "rate_limit_exceeded";
    case Reason::token_quota_exceeded: return "token_quota_exceeded";
    case Reason::limit_exceeded: return "limit_exceeded";
    case Reason::concurrency_limit_exceeded: return "concurrency_limit_exceeded";
    case Reason::policy_cooldown_active: return "policy_cooldown_active";
    case Reason::insufficient_balance: return "insufficient_balance";
    case Reason::insufficient_funds: return "insufficient_funds";
    case Reason::insufficient_allowance: return "insufficient_allowance";
    case Reason::no_subscription: return "no_subscription";
    case Reason::payg_topup_required: return "payg_topup_required";
    case Reason::template_access_denied: return "template_access_denied";
    case Reason::not_reseller: return "not_reseller";
    case Reason::gift_code_not_found: return "gift_code_not_found";
    case Reason::quote_mismatch: return "quote_mismatch";
    case Reason::active_retry_exists: return "active_retry_exists";
    case Reason::stitch_in_progress: return "stitch_in_progress";
    case Reason::gift_code_cancel_window_expired: return "gift_code_cancel_window_expired";
    case Reason::gift_code_not_cancellable: return "gift_code_not_cancellable";
    case Reason::invalid_order_status: return "invalid_order_status";
    case Reason::invalid_status: return "invalid_status";
    case Reason::max_attempts_reached: return "max_attempts_reached";
    case Reason::generative_not_supported: return "generative_not_supported";
    case Reason::nothing_to_retry: return "nothing_to_retry";
    case Reason::text_over_capacity: return "text_over_capacity";
    case Reason::content_blocked: return "content_blocked";
    case Reason::input_expired: return "input_expired";
    case Reason::retry_config_outdated: return "retry_config_outdated";
    case Reason::service_not_found: return "service_not_found";
    case Reason::template_model_outdated: return "template_model_outdated";
    case Reason::source_file_required: return "source_file_required";
    case Reason::source_file_unsupported: return "source_file_unsupported";
    case Reason::service_maintenance: return "service_maintenance";
    case Reason::idempotency_key_reused: return "idempotency_key_reused";
    case Reason::too_many_unknown_keys: return "too_many_unknown_keys";
  }
  return "";
}

int status_of(Reason reason) noexcept {
  switch (reason) {
    case Reason::none: return 400;
    case Reason::endpoint_not_found:
    case Reason::not_reseller:
    case Reason::gift_code_not_found: return 404;
    case Reason::ip_banned:
    case Reason::rate_limit_exceeded:
    case Reason::token_quota_exceeded:
    case Reason::limit_exceeded:
    case Reason::concurrency_limit_exceeded:
    case Reason::policy_cooldown_active:
    case Reason::too_many_unknown_keys: return 429;
    case Reason::insufficient_balance:
    case Reason::insufficient_funds:
    case Reason::insufficient_allowance:
    case Reason::no_subscription:
    case Reason::payg_topup_required: return 402;
    case Reason::template_access_denied: return 403;
    case Reason::quote_mismatch:
    case Reason::active_retry_exists:
    case Reason::stitch_in_progress:
    case Reason::gift_code_cancel_window_expired:
    case Reason::gift_code_not_cancellable:
    case Reason::idempotency_key_reused: return 409;
    case Reason::invalid_order_status:
    case Reason::invalid_status:
    case Reason::max_attempts_reached:
    case Reason::generative_not_supported:
    case Reason::nothing_to_retry:
    case Reason::text_over_capacity:
    case Reason::content_blocked:
    case Reason::input_expired:
    case Reason::retry_config_outdated:
    case Reason::service_not_found:
    case Reason::template_model_outdated:
    case Reason::source_file_required:
    case Reason::source_file_unsupported: return 422;
    case Reason::service_maintenance: return 503;
  }
  return 500;  // unreachable: every reason is listed above
}

namespace {
ApiError make(int status, ErrorShape shape, Message message) {
  ApiError e;
  e.status = status;
  e.shape = shape;
  e.message = std::move(message);
  return e;
}
}  // namespace

ApiError ApiError::api_key_missing() { return make(401, ErrorShape::auth, {"auth.api_key.missing"}); }
ApiError ApiError::api_key_invalid() { return make(401, ErrorShape::auth, {"auth.api_key.invalid"}); }
ApiError ApiError::api_key_expired() { return make(401, ErrorShape::auth, {"auth.api_key.expired"}); }

ApiError ApiError::permission_denied(std::string_view scope) {
  return make(403, ErrorShape::auth, {"auth.permission_denied", {{"permission", std::string(scope)}}});
}

ApiError ApiError::forbidden() { return make(403, ErrorShape::auth, {"errors.forbidden"}); }

ApiError ApiError::not_found() { return make(404, ErrorShape::plain, {"errors.not_found"}); }

ApiError ApiError::endpoint_not_found(std::string_view method, std::string_view path,
                                      std::string docs, std::string developers,
                                      std::int64_t misses_left, std::int64_t threshold,
                                      std::int64_t window_minutes) {
  ApiError e = make(404, ErrorShape::domain, {"errors.endpoint_not_found"});
  e.reason = Reason::endpoint_not_found;
  e.with_english_message = true;
  e.with("method", std::string(method))
      .with("path", std::string(path))
      .with("docs", std::move(docs))
      .with("developers", std::move(developers))
      .with("ban_warning", Message{"errors.ban_warning",
                                   {{"left", std::to_string(misses_left)},
                                    {"threshold", std::to_string(threshold)},
                                    {"minutes", std::to_string(window_minutes)}}});
  return e;
}

ApiError ApiError::method_not_allowed(std::string allow) {
  ApiError e = make(405, ErrorShape::plain, {"errors.method_not_allowed"});
  e.headers.emplace_back("Allow", std::move(allow));
  return e;
}

ApiError ApiError::payload_too_large() {
  ApiError e = make(413, ErrorShape::plain, {"errors.payload_too_large"});
  e.close_connection = true;
  return e;
}

ApiError ApiError::header_too_large() {
  ApiError e = make(431, ErrorShape::plain, {"errors.header_too_large"});
  e.close_connection = true;
  return e;
}

ApiError ApiError::path_not_text() { return make(400, ErrorShape::plain, {"errors.path_invalid"}); }

ApiError ApiError::bad_request() {
  ApiError e = make(400, ErrorShape::plain, {"errors.bad_request"});
  e.close_connection = true;
  return e;
}

ApiError ApiError::unsupported_media_type() {
  return make(415, ErrorShape::plain, {"errors.unsupported_media_type"});
}

ApiError ApiError::internal_error(std::string internal_detail) {
  ApiError e = make(500, ErrorShape::plain, {"errors.internal"});
  e.internal = std::move(internal_detail);
  return e;
}

ApiError ApiError::unavailable(std::string internal_detail) {
  ApiError e = make(503, ErrorShape::plain, {"errors.unavailable"});
  e.headers.emplace_back("Retry-After", "5");
  e.internal = std::move(internal_detail);
  return e;
}

ApiError ApiError::ip_banned(TimePoint banned_until, std::int64_t retry_after, std::int64_t step,
                             std::vector<std::int64_t> ladder_seconds) {
  ApiError e = refused(Reason::ip_banned);
  e.with("retry_after", retry_after)
      .with("banned_until", banned_until)
      .with("ban_step", step)
      .with("ban_ladder_seconds", std::move(ladder_seconds));
  e.headers.emplace_back("Retry-After", std::to_string(retry_after));
  return e;
}

ApiError ApiError::rate_limited(std::int64_t retry_after) {
  ApiError e = refused(Reason::rate_limit_exceeded);
  e.with("retry_after", retry_after);
  e.headers.emplace_back("Retry-After", std::to_string(retry_after));
  return e;
}

ApiError ApiError::too_many_unknown_keys(std::int64_t retry_after) {
  ApiError e = refused(Reason::too_many_unknown_keys);
  e.with("retry_after", retry_after);
  e.headers.emplace_back("Retry-After", std::to_string(retry_after));
  return e;
}

ApiError ApiError::token_window_exceeded(std::string window, std::int64_t limit, std::int64_t used,
                                         std::int64_t requested, TimePoint reset_at, std::int64_t retry_after) {
  ApiError e = refused(Reason::token_quota_exceeded);
  e.message = Message{"errors.token_window_exceeded"};
  e.with("window", std::move(window))
      .with("limit", limit)
      .with("used", used)
      .with("requested", requested)
      .with("reset_at", reset_at)
      .with("retry_after", retry_after);
  e.headers.emplace_back("Retry-After", std::to_string(retry_after));
  return e;
}

ApiError ApiError::token_pool_exhausted(std::int64_t limit, std::int64_t used, std::int64_t requested) {
  ApiError e = refused(Reason::token_quota_exceeded);
  e.with("window", std::string("quota"))
      .with("limit", limit)
      .with("used", used)
      .with("requested", requested)
      .with("reset_at", nullptr)
      .with("retry_after", nullptr);
  return e;
}

ApiError ApiError::validation(std::string field, Message message) {
  ApiError e = make(422, ErrorShape::validation, {});
  e.add_field(std::move(field), std::move(message));
  return e;
}

ApiError& ApiError::add_field(std::string field, Message message) {
  for (auto& f : fields) {
    if (f.field == field) {
      f.messages.push_back(std::move(message));
      return *this;
    }
  }
  fields.push_back({std::move(field), {std::move(message)}});
  return *this;
}

ApiError ApiError::refused(Reason reason) {
  ApiError e = make(status_of(reason), ErrorShape::domain, {"errors." + std::string(to_string(reason))});
  e.reason = reason;
  return e;
}

ApiError ApiError::retry_config_outdated_on_order() {
  ApiError e = refused(Reason::retry_config_outdated);
  e.status = 400;
  return e;
}

ApiError ApiError::order_not_cancellable() {
  ApiError e = refused(Reason::none);
  e.message = Message{"errors.order_not_cancellable"};
  return e;
}

void throw_exception_from_error(const ApiError& e, const boost::source_location&) { throw e; }

}  // namespace mediagen
