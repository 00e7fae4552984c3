#include "mediagen/auth/key_json.hpp"

#include <algorithm>

#include "mediagen/core/json_writer.hpp"

namespace mediagen::auth {

std::string key_json(const Principal& p, const TimeZone& tz, std::int64_t quota_used) {
  const auto& l = p.limits;
  JsonWriter w(640);
  w.begin_object()
      .field("id", p.key_id.value)
      .field("user_id", p.user_id.value)
      .field("name", std::string_view(p.key_name))
      .field("prefix", std::string_view(p.key_prefix))
      .field("scopes", p.scopes.names());
  w.key("expires_at");
  if (p.expires_at) w.value(std::string_view(tz.format(*p.expires_at)));
  else w.null();
  w.field("created_at", std::string_view(tz.format(p.created_at)));
  w.key("limits").begin_object();
  w.key("requests")
      .begin_object()
      .field("per_minute", l.requests.per_minute)
      .field("per_hour", l.requests.per_hour)
      .field("per_day", l.requests.per_day)
      .end_object();
  w.key("tokens")
      .begin_object()
      .field("per_minute", l.tokens.per_minute)
      .field("per_hour", l.tokens.per_hour)
      .field("per_day", l.tokens.per_day)
      .field("per_month", l.tokens.per_month);
  w.key("quota");
  if (l.tokens.quota) {
    w.begin_object()
        .field("limit", *l.tokens.quota)
        .field("used", quota_used)
        .field("remaining", std::max<std::int64_t>(0, *l.tokens.quota - quota_used))
        .end_object();
  } else {
    w.null();
  }
  w.end_object().end_object();
  w.field("ai_monthly_limit_minor", l.ai_monthly_limit_minor);
  w.end_object();
  return w.take();
}

}  // namespace mediagen::auth
