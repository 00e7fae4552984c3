// Window arithmetic and the 429 of the token windows (token_windows.hpp).
#include "mediagen/orders/limits.hpp"

#include <chrono>

namespace mediagen::orders {

std::string_view to_string(TokenWindow window) {
  switch (window) {
    case TokenWindow::per_minute: return "per_minute";
    case TokenWindow::per_hour: return "per_hour";
    case TokenWindow::per_day: return "per_day";
    case TokenWindow::per_month: return "per_month";
  }
  return "";
}

TimePoint window_end(TokenWindow window, TimePoint at) {
  using namespace std::chrono;
  switch (window) {
    case TokenWindow::per_minute: return floor<minutes>(at) + minutes{1};
    case TokenWindow::per_hour: return floor<hours>(at) + hours{1};
    case TokenWindow::per_day: return floor<days>(at) + days{1};
    case TokenWindow::per_month: {
      const year_month_day today{floor<days>(at)};
      const year_month next = year_month{today.year(), today.month()} + months{1};
      return sys_days{next / 1};
    }
  }
  return at;
}

ApiError token_quota_exceeded(const TokenRefusal& refusal) {
  return ApiError::token_window_exceeded(std::string(to_string(refusal.window)), refusal.limit, refusal.used,
                                         refusal.requested, refusal.reset_at, refusal.retry_after);
}

}  // namespace mediagen::orders
