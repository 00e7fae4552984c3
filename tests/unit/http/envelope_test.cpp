#include "mediagen/http/envelope.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "mediagen/core/time_zone.hpp"

namespace mediagen::http {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

json body_of(const ApiError& e, Locale locale = Locale::en, const TimeZone& tz = TimeZone::utc()) {
  return json::parse(error_body(e, locale, tz));
}

std::set<std::string> keys_of(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

std::optional<std::string> header(const Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return std::nullopt;
}

TimeZone zone(std::string_view name) { return *TimeZone::parse(name); }

// ---- 401 / 403: the authentication shape ----

TEST(ErrorBody, Renders401WithExactlySuccessMessageAndNullData) {
  EXPECT_EQ(error_body(ApiError::api_key_missing(), Locale::en, TimeZone::utc()),
            R"({"success":false,"message":"API key is missing: send it in the X-API-KEY header.","data":null})");
  for (const auto& e : {ApiError::api_key_missing(), ApiError::api_key_invalid(), ApiError::api_key_expired()}) {
    const json b = body_of(e);
    EXPECT_EQ(e.status, 401);
    EXPECT_EQ(keys_of(b), (std::set<std::string>{"success", "message", "data"}));
    EXPECT_EQ(b["success"], false);
    EXPECT_TRUE(b["data"].is_null());
  }
}

TEST(ErrorResponse, Sends401WithoutRetryAfter) {
  const Response r = error_response(ApiError::api_key_invalid(), Locale::en, TimeZone::utc());
  EXPECT_EQ(r.status, 401);
  EXPECT_FALSE(header(r, "Retry-After").has_value());
  EXPECT_FALSE(r.close);
  EXPECT_EQ(r.content_type, "application/json; charset=utf-8");
}

TEST(ErrorBody, Renders401InRussian) {
  EXPECT_EQ(body_of(ApiError::api_key_invalid(), Locale::ru)["message"], "API-ключ недействителен.");
  EXPECT_EQ(body_of(ApiError::api_key_expired(), Locale::ru)["message"], "Срок действия API-ключа истёк.");
}

TEST(ErrorBody, Renders403NamingTheMissingPermission) {
  const ApiError e = ApiError::permission_denied("orders.download");
  EXPECT_EQ(e.status, 403);
  EXPECT_EQ(error_body(e, Locale::en, TimeZone::utc()),
            R"({"success":false,"message":"This API key lacks the orders.download permission.","data":null})");
  EXPECT_EQ(body_of(e, Locale::ru)["message"], "У этого API-ключа нет разрешения orders.download.");
}

TEST(ErrorBody, Renders403ForAnotherUsersObjectInTheAuthShape) {
  const json b = body_of(ApiError::forbidden());
  EXPECT_EQ(keys_of(b), (std::set<std::string>{"success", "message", "data"}));
}

// ---- 404 endpoint_not_found ----

TEST(ErrorBody, Renders404EndpointNotFoundWithEveryField) {
  const ApiError e = ApiError::endpoint_not_found("DELETE", "/api/nope", "https://docs.example/api",
                                                  "https://dev.example", 7, 20, 10);
  EXPECT_EQ(e.status, 404);
  const json b = body_of(e);
  EXPECT_EQ(keys_of(b), (std::set<std::string>{"success", "message", "message_en", "reason", "error_code", "method",
                                                "path", "docs", "developers", "ban_warning"}));
  EXPECT_EQ(b["success"], false);
  EXPECT_EQ(b["message"], "The requested endpoint does not exist.");
  EXPECT_EQ(b["message_en"], "The requested endpoint does not exist.");
  EXPECT_EQ(b["reason"], "endpoint_not_found");
  EXPECT_EQ(b["error_code"], "endpoint_not_found");
  EXPECT_EQ(b["method"], "DELETE");
  EXPECT_EQ(b["path"], "/api/nope");
  EXPECT_EQ(b["docs"], "https://docs.example/api");
  EXPECT_EQ(b["developers"], "https://dev.example");
  EXPECT_THAT(b["ban_warning"].get<std::string>(), HasSubstr("7"));
  EXPECT_THAT(b["ban_warning"].get<std::string>(), HasSubstr("20"));
}

TEST(ErrorBody, Renders404EndpointNotFoundInRussianKeepingTheEnglishMessage) {
  const json b = body_of(ApiError::endpoint_not_found("GET", "/x", "d", "v", 3, 20, 10), Locale::ru);
  EXPECT_EQ(b["message"], "Запрошенный адрес не существует.");
  EXPECT_EQ(b["message_en"], "The requested endpoint does not exist.");
  EXPECT_EQ(b["reason"], "endpoint_not_found");
  EXPECT_THAT(b["ban_warning"].get<std::string>(), HasSubstr("осталось 3 из 20"));
}

TEST(ErrorBody, KeepsTheSpecFieldOrderOfEndpointNotFound) {
  const std::string text = error_body(ApiError::endpoint_not_found("GET", "/x", "d", "v", 3, 20, 10), Locale::en,
                                      TimeZone::utc());
  std::size_t last = 0;
  for (const char* key : {"\"success\"", "\"message\"", "\"message_en\"", "\"reason\"", "\"error_code\"",
                          "\"method\"", "\"path\"", "\"docs\"", "\"developers\"", "\"ban_warning\""}) {
    const std::size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    EXPECT_GE(at, last) << key << " out of order in " << text;
    last = at;
  }
}

TEST(ErrorBody, EscapesAHostilePathInEndpointNotFound) {
  const std::string path = "/api/\"}\n<script>\x01";
  const json b = body_of(ApiError::endpoint_not_found("GET", path, "d", "v", 1, 20, 10));
  EXPECT_EQ(b["path"], path);
}

TEST(ErrorBody, ReplacesInvalidUtf8InAPathInsteadOfThrowing) {
  const json b = body_of(ApiError::endpoint_not_found("GET", "/api/\xff\xfe", "d", "v", 1, 20, 10));
  EXPECT_TRUE(b["path"].is_string());
}

// ---- plain shapes ----

TEST(ErrorBody, RendersPlainErrorsWithSuccessAndMessageOnly) {
  const std::vector<std::pair<ApiError, std::string>> cases{
      {ApiError::not_found(), "Not found."},
      {ApiError::method_not_allowed("GET, HEAD"), "Method not allowed."},
      {ApiError::payload_too_large(), "Request body is too large."},
      {ApiError::header_too_large(), "Request header fields are too large."},
      {ApiError::internal_error("secret detail"), "Internal server error."},
      {ApiError::unavailable("db down"), "Service temporarily unavailable."},
  };
  for (const auto& [e, message] : cases) {
    const json b = body_of(e);
    EXPECT_EQ(keys_of(b), (std::set<std::string>{"success", "message"})) << b.dump();
    EXPECT_EQ(b["success"], false);
    EXPECT_EQ(b["message"], message);
  }
}

TEST(ErrorBody, NeverShowsInternalDetails) {
  const std::string text = error_body(ApiError::internal_error("password=hunter2"), Locale::en, TimeZone::utc());
  EXPECT_EQ(text.find("hunter2"), std::string::npos);
}

TEST(ErrorResponse, Sends405WithTheAllowHeader) {
  const Response r = error_response(ApiError::method_not_allowed("GET, HEAD, POST"), Locale::en, TimeZone::utc());
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(header(r, "Allow"), "GET, HEAD, POST");
}

TEST(ErrorResponse, Sends413And431AndClosesTheConnection) {
  EXPECT_TRUE(error_response(ApiError::payload_too_large(), Locale::en, TimeZone::utc()).close);
  EXPECT_TRUE(error_response(ApiError::header_too_large(), Locale::en, TimeZone::utc()).close);
  EXPECT_EQ(ApiError::header_too_large().status, 431);
  EXPECT_EQ(ApiError::payload_too_large().status, 413);
}

TEST(ErrorResponse, Sends503WithRetryAfter) {
  const Response r = error_response(ApiError::unavailable("x"), Locale::en, TimeZone::utc());
  EXPECT_EQ(r.status, 503);
  EXPECT_TRUE(header(r, "Retry-After").has_value());
}

// ---- 422 validation ----

TEST(ErrorBody, Renders422ValidationWithMessageAndErrorsButNoSuccess) {
  const ApiError e = ApiError::validation("body", Message{"validation.invalid_json"});
  EXPECT_EQ(e.status, 422);
  EXPECT_EQ(error_body(e, Locale::en, TimeZone::utc()),
            R"({"message":"The request body is not valid JSON.","errors":{"body":["The request body is not valid JSON."]}})");
}

TEST(ErrorBody, Renders422WithSeveralFieldsAndTheFirstMessageOnTop) {
  ApiError e = ApiError::validation("text", Message{"validation.too_deep"});
  e.add_field("voice", Message{"validation.invalid_json"}).add_field("text", Message{"validation.invalid_json"});
  const json b = body_of(e);
  EXPECT_EQ(keys_of(b), (std::set<std::string>{"message", "errors"}));
  EXPECT_EQ(b["message"], "The request body is nested too deeply.");
  EXPECT_EQ(b["errors"]["text"].size(), 2u);
  EXPECT_EQ(b["errors"]["voice"].size(), 1u);
}

TEST(ErrorBody, Renders422InRussian) {
  const json b = body_of(ApiError::validation("body", Message{"validation.invalid_json"}), Locale::ru);
  EXPECT_EQ(b["message"], "Тело запроса не является корректным JSON.");
  EXPECT_EQ(b["errors"]["body"][0], "Тело запроса не является корректным JSON.");
}

// ---- domain refusals ----

TEST(ErrorBody, RendersADomainRefusalWithReasonEqualToErrorCode) {
  for (Reason r : {Reason::insufficient_balance, Reason::quote_mismatch, Reason::content_blocked,
                   Reason::service_maintenance}) {
    const ApiError e = ApiError::refused(r);
    const json b = body_of(e);
    EXPECT_EQ(b["success"], false);
    EXPECT_EQ(b["reason"], std::string(to_string(r)));
    EXPECT_EQ(b["error_code"], b["reason"]);
    EXPECT_NE(b["message"], "errors." + std::string(to_string(r)));
    EXPECT_FALSE(b.contains("data"));
    EXPECT_FALSE(b.contains("errors"));
  }
}

TEST(ApiError, ARefusalTakesItsStatusFromTheSpecsTable) {
  // Spec 7.1 and 8.1, row by row: the status is fixed by the reason, never by the caller.
  const std::vector<std::pair<int, std::vector<Reason>>> table = {
      {402, {Reason::insufficient_balance, Reason::insufficient_funds, Reason::insufficient_allowance,
             Reason::no_subscription, Reason::payg_topup_required}},
      {403, {Reason::template_access_denied}},
      {404, {Reason::endpoint_not_found, Reason::not_reseller, Reason::gift_code_not_found}},
      {409, {Reason::quote_mismatch, Reason::active_retry_exists, Reason::stitch_in_progress,
             Reason::gift_code_cancel_window_expired, Reason::gift_code_not_cancellable, Reason::idempotency_key_reused}},
      {422, {Reason::invalid_order_status, Reason::invalid_status, Reason::max_attempts_reached,
             Reason::generative_not_supported, Reason::nothing_to_retry, Reason::text_over_capacity,
             Reason::content_blocked, Reason::input_expired, Reason::retry_config_outdated, Reason::service_not_found,
             Reason::template_model_outdated, Reason::source_file_required, Reason::source_file_unsupported}},
      {429, {Reason::rate_limit_exceeded, Reason::token_quota_exceeded, Reason::limit_exceeded,
             Reason::concurrency_limit_exceeded, Reason::policy_cooldown_active, Reason::ip_banned,
             Reason::too_many_unknown_keys}},
      {503, {Reason::service_maintenance}},
  };
  for (const auto& [status, reasons] : table) {
    for (Reason r : reasons) {
      const ApiError e = ApiError::refused(r);
      EXPECT_EQ(e.status, status) << to_string(r);
      EXPECT_EQ(e.reason, r);
      EXPECT_EQ(body_of(e)["reason"], std::string(to_string(r)));
    }
  }
}

TEST(ApiError, TheTwoRefusalsOutsideTheTableAnswer400) {
  const ApiError outdated = ApiError::retry_config_outdated_on_order();
  EXPECT_EQ(outdated.status, 400);
  EXPECT_EQ(body_of(outdated)["reason"], "retry_config_outdated");
  const ApiError cancel = ApiError::order_not_cancellable();
  EXPECT_EQ(cancel.status, 400);
  EXPECT_FALSE(body_of(cancel).contains("reason"));
  EXPECT_EQ(body_of(cancel)["message"], "Only created, pending or partially completed orders can be cancelled.");
}

TEST(ErrorBody, AppendsExtraFieldsAfterTheReason) {
  ApiError e = ApiError::refused(Reason::insufficient_balance);
  e.with("required", std::int64_t{1500}).with("flag", true).with("note", std::string("x")).with("nothing", nullptr);
  const json b = body_of(e);
  EXPECT_EQ(b["required"], 1500);
  EXPECT_EQ(b["flag"], true);
  EXPECT_EQ(b["note"], "x");
  EXPECT_TRUE(b["nothing"].is_null());
}

TEST(ErrorResponse, Sends429RateLimitedWithRetryAfter) {
  const Response r = error_response(ApiError::rate_limited(17), Locale::en, TimeZone::utc());
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(header(r, "Retry-After"), "17");
  const json b = json::parse(r.body);
  EXPECT_EQ(b["reason"], "rate_limit_exceeded");
  EXPECT_EQ(b["error_code"], "rate_limit_exceeded");
  EXPECT_EQ(b["retry_after"], 17);
}

// ---- ip_banned ----

TEST(ErrorResponse, Sends429IpBannedWithEveryFieldAndRetryAfter) {
  const TimePoint until = *parse_iso8601("2026-11-22T20:44:45Z");
  const Response r = error_response(ApiError::ip_banned(until, 299, 1, {300, 600, 1800, 3600, 86400}), Locale::en,
                                    TimeZone::utc());
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(header(r, "Retry-After"), "299");
  const json b = json::parse(r.body);
  EXPECT_EQ(keys_of(b), (std::set<std::string>{"success", "message", "reason", "error_code", "retry_after",
                                                "banned_until", "ban_step", "ban_ladder_seconds"}));
  EXPECT_EQ(b["success"], false);
  EXPECT_EQ(b["reason"], "ip_banned");
  EXPECT_EQ(b["error_code"], "ip_banned");
  EXPECT_EQ(b["retry_after"], 299);
  EXPECT_EQ(b["banned_until"], "2026-11-22T20:44:45+00:00");
  EXPECT_EQ(b["ban_step"], 1);
  EXPECT_EQ(b["ban_ladder_seconds"], json::array({300, 600, 1800, 3600, 86400}));
}

TEST(ErrorBody, RendersTimesInTheRequestedZone) {
  const TimePoint until = *parse_iso8601("2026-11-22T20:44:45Z");
  const ApiError e = ApiError::ip_banned(until, 10, 2, {300, 600});
  EXPECT_EQ(body_of(e, Locale::en, zone("Europe/Moscow"))["banned_until"], "2026-11-22T23:44:45+03:00");
  EXPECT_EQ(body_of(e, Locale::en, zone("Asia/Kathmandu"))["banned_until"], "2026-11-23T02:29:45+05:45");
  EXPECT_EQ(body_of(e, Locale::en, zone("Etc/GMT+3"))["banned_until"], "2026-11-22T17:44:45-03:00");
}

TEST(ErrorBody, LocalizesTheMessageButNeverTheMachineFields) {
  const ApiError e = ApiError::ip_banned(TimePoint{std::chrono::seconds{1795380285}}, 10, 2, {300, 600});
  const json en = body_of(e, Locale::en);
  const json ru = body_of(e, Locale::ru);
  EXPECT_NE(en["message"], ru["message"]);
  EXPECT_EQ(ru["message"], "Ваш IP-адрес временно заблокирован из-за повторных запросов к несуществующим адресам.");
  for (const char* field : {"reason", "error_code", "retry_after", "banned_until", "ban_step", "ban_ladder_seconds"}) {
    EXPECT_EQ(en[field], ru[field]) << field;
  }
}

// ---- success envelope ----

TEST(SuccessResponse, WrapsDataInTheEnvelope) {
  const Response r = success_response(Reply{.data_json = R"({"id":1})"}, Locale::en);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"success":true,"message":"OK.","data":{"id":1}})");
  EXPECT_EQ(json::parse(success_response(Reply{}, Locale::ru).body)["message"], "Готово.");
}

TEST(SuccessResponse, SendsABareBodyForProbes) {
  const Response r = success_response(Reply{.data_json = R"({"status":"ok"})", .bare = true}, Locale::en);
  EXPECT_EQ(r.body, R"({"status":"ok"})");
}

}  // namespace
}  // namespace mediagen::http
