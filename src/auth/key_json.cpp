#include "mediagen/auth/key_json.hpp"

#include <nlohmann/json.hpp>

namespace mediagen::auth {
namespace {
nlohmann::ordered_json opt(const std::optional<std::int64_t>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}
}  // namespace

nlohmann::ordered_json key_json(const Principal& p, const TimeZone& tz, std::int64_t quota_used) {
  const auto& l = p.limits;
  return nlohmann::ordered_json{
      {"id", p.key_id.value},
      {"user_id", p.user_id.value},
      {"name", p.key_name},
      {"prefix", p.key_prefix},
      {"scopes", p.scopes.names()},
      {"expires_at", p.expires_at ? nlohmann::ordered_json(tz.format(*p.expires_at)) : nlohmann::ordered_json(nullptr)},
      {"created_at", tz.format(p.created_at)},
      {"limits",
       {{"requests",
         {{"per_minute", opt(l.requests.per_minute)},
          {"per_hour", opt(l.requests.per_hour)},
          {"per_day", opt(l.requests.per_day)}}},
        {"tokens",
         {{"per_minute", opt(l.tokens.per_minute)},
          {"per_hour", opt(l.tokens.per_hour)},
          {"per_day", opt(l.tokens.per_day)},
          {"per_month", opt(l.tokens.per_month)},
          {"quota", l.tokens.quota ? nlohmann::ordered_json{{"limit", *l.tokens.quota},
                                                             {"used", quota_used},
                                                             {"remaining", std::max<std::int64_t>(0, *l.tokens.quota - quota_used)}}
                                   : nlohmann::ordered_json(nullptr)}}}}},
      {"ai_monthly_limit_minor", opt(l.ai_monthly_limit_minor)},
  };
}

}  // namespace mediagen::auth
