#include "mediagen/orders/limits.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "mediagen/core/time_zone.hpp"
#include "mediagen/http/envelope.hpp"

namespace mediagen::orders {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

TimePoint instant(std::string_view iso) { return *parse_iso8601(iso); }

std::optional<std::string> header(const http::Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) {
      return v;
    }
  }
  return std::nullopt;
}

std::set<std::string> keys_of(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) {
    out.insert(k);
  }
  return out;
}

// ---- window boundaries ----

TEST(TokenWindowEnd, IsTheNextWholeMinuteHourAndDayInUtc) {
  const TimePoint t = instant("2026-03-14T15:09:26Z") + 535ms;
  EXPECT_EQ(window_end(TokenWindow::per_minute, t), instant("2026-03-14T15:10:00Z"));
  EXPECT_EQ(window_end(TokenWindow::per_hour, t), instant("2026-03-14T16:00:00Z"));
  EXPECT_EQ(window_end(TokenWindow::per_day, t), instant("2026-03-15T00:00:00Z"));
}

TEST(TokenWindowEnd, OfAMonthIsTheFirstOfTheNextMonthAtMidnightUtc) {
  EXPECT_EQ(window_end(TokenWindow::per_month, instant("2026-01-31T23:59:59Z")), instant("2026-02-01T00:00:00Z"));
  EXPECT_EQ(window_end(TokenWindow::per_month, instant("2028-02-29T12:00:00Z")), instant("2028-03-01T00:00:00Z"));
  EXPECT_EQ(window_end(TokenWindow::per_month, instant("2026-12-15T08:00:00Z")), instant("2027-01-01T00:00:00Z"));
}

TEST(TokenWindowEnd, MovesOnOnlyWhenTheBoundaryIsReached) {
  EXPECT_EQ(window_end(TokenWindow::per_minute, instant("2026-03-14T15:10:00Z")), instant("2026-03-14T15:11:00Z"));
  EXPECT_EQ(window_end(TokenWindow::per_month, instant("2026-03-01T00:00:00Z")), instant("2026-04-01T00:00:00Z"));
  EXPECT_EQ(window_end(TokenWindow::per_month, instant("2026-02-28T23:59:59Z") + 999ms), instant("2026-03-01T00:00:00Z"));
}

TEST(TokenWindow, IsNamedAsOnTheWire) {
  EXPECT_EQ(to_string(TokenWindow::per_minute), "per_minute");
  EXPECT_EQ(to_string(TokenWindow::per_hour), "per_hour");
  EXPECT_EQ(to_string(TokenWindow::per_day), "per_day");
  EXPECT_EQ(to_string(TokenWindow::per_month), "per_month");
}

// ---- the 429 body of spec 8.1 ----

TEST(TokenQuotaExceeded, AnswersARefusedWindowWithEveryFieldAndRetryAfter) {
  const TokenRefusal refusal{.window = TokenWindow::per_hour,
                             .limit = 5000,
                             .used = 4900,
                             .requested = 250,
                             .reset_at = instant("2026-11-22T21:00:00Z"),
                             .retry_after = 915};
  const ApiError e = token_quota_exceeded(refusal);
  const http::Response r = http::error_response(e, Locale::en, TimeZone::utc());
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(header(r, "Retry-After"), "915");
  const json b = json::parse(r.body);
  EXPECT_EQ(keys_of(b), (std::set<std::string>{"success", "message", "reason", "error_code", "window", "limit",
                                                "used", "requested", "reset_at", "retry_after"}));
  EXPECT_EQ(b["success"], false);
  EXPECT_EQ(b["reason"], "token_quota_exceeded");
  EXPECT_EQ(b["error_code"], "token_quota_exceeded");
  EXPECT_EQ(b["window"], "per_hour");
  EXPECT_EQ(b["limit"], 5000);
  EXPECT_EQ(b["used"], 4900);
  EXPECT_EQ(b["requested"], 250);
  EXPECT_EQ(b["reset_at"], "2026-11-22T21:00:00+00:00");
  EXPECT_EQ(b["retry_after"], 915);
}

TEST(TokenQuotaExceeded, RendersResetAtInTheRequestedZone) {
  const ApiError e = token_quota_exceeded({.window = TokenWindow::per_month,
                                           .limit = 10,
                                           .used = 10,
                                           .requested = 1,
                                           .reset_at = instant("2026-12-01T00:00:00Z"),
                                           .retry_after = 60});
  const json b = json::parse(http::error_body(e, Locale::en, *TimeZone::parse("Europe/Moscow")));
  EXPECT_EQ(b["reset_at"], "2026-12-01T03:00:00+03:00");
  EXPECT_EQ(b["window"], "per_month");
}

TEST(TokenQuotaExceeded, AnswersAnExhaustedPoolWithNullsAndNoRetryAfter) {
  const http::Response r =
      http::error_response(ApiError::token_pool_exhausted(1000, 980, 40), Locale::en, TimeZone::utc());
  EXPECT_EQ(r.status, 429);
  EXPECT_FALSE(header(r, "Retry-After").has_value());
  const json b = json::parse(r.body);
  EXPECT_EQ(keys_of(b), (std::set<std::string>{"success", "message", "reason", "error_code", "window", "limit",
                                                "used", "requested", "reset_at", "retry_after"}));
  EXPECT_EQ(b["reason"], "token_quota_exceeded");
  EXPECT_EQ(b["error_code"], "token_quota_exceeded");
  EXPECT_EQ(b["window"], "quota");
  EXPECT_EQ(b["limit"], 1000);
  EXPECT_EQ(b["used"], 980);
  EXPECT_EQ(b["requested"], 40);
  EXPECT_TRUE(b["reset_at"].is_null());
  EXPECT_TRUE(b["retry_after"].is_null());
}

TEST(TokenQuotaExceeded, HasAnEnglishAndARussianMessageForWindowsAndThePool) {
  const ApiError window = token_quota_exceeded({.window = TokenWindow::per_minute, .retry_after = 1});
  const ApiError pool = ApiError::token_pool_exhausted(1, 1, 1);
  for (const ApiError* e : {&window, &pool}) {
    const std::string en = render(e->message, Locale::en);
    const std::string ru = render(e->message, Locale::ru);
    EXPECT_NE(en, e->message.key);
    EXPECT_NE(ru, e->message.key);
    EXPECT_NE(en, ru);
  }
}

}  // namespace
}  // namespace mediagen::orders
