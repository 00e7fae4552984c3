#include "mediagen/auth/key_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace mediagen::auth {
namespace {

using json = nlohmann::json;

Principal sample_key() {
  Principal p;
  p.key_id = ApiKeyId{5};
  p.user_id = UserId{9};
  p.key_name = "ci \"robot\"";
  p.key_prefix = "mg_AbCdE";
  p.key_hash = crypto::sha256("mg_secret");
  p.scopes = *preset("automation");
  p.created_at = *parse_iso8601("2026-11-22T20:44:45Z");
  return p;
}

std::set<std::string> keys_of(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

TEST(KeyJson, DescribesAKeyWithEveryContractField) {
  const json j = json::parse(key_json(sample_key(), TimeZone::utc(), 0));
  const auto keys = keys_of(j);
  for (const char* field : {"id", "name", "scopes", "expires_at", "created_at", "limits", "ai_monthly_limit_minor"}) {
    EXPECT_TRUE(keys.contains(field)) << field;
  }
  EXPECT_EQ(keys_of(j["limits"]), (std::set<std::string>{"requests", "tokens"}));
  EXPECT_EQ(j["id"], 5);
  EXPECT_EQ(j["name"], "ci \"robot\"");
  EXPECT_EQ(j["scopes"], json::array({"orders.read", "orders.write", "orders.download", "templates.read",
                                      "voices.read", "billing.read", "profile.read"}));
  EXPECT_TRUE(j["expires_at"].is_null());
  EXPECT_EQ(j["created_at"], "2026-11-22T20:44:45+00:00");
  EXPECT_TRUE(j["ai_monthly_limit_minor"].is_null());
}

TEST(KeyJson, NeverShowsTheKeyHash) {
  const std::string text = key_json(sample_key(), TimeZone::utc(), 0);
  EXPECT_EQ(text.find(crypto::to_hex(crypto::sha256("mg_secret"))), std::string::npos);
  EXPECT_EQ(text.find("hash"), std::string::npos);
}

TEST(KeyJson, ShowsUnsetLimitsAsNull) {
  const json j = json::parse(key_json(sample_key(), TimeZone::utc(), 0));
  for (const char* w : {"per_minute", "per_hour", "per_day"}) EXPECT_TRUE(j["limits"]["requests"][w].is_null()) << w;
  for (const char* w : {"per_minute", "per_hour", "per_day", "per_month", "quota"}) {
    EXPECT_TRUE(j["limits"]["tokens"][w].is_null()) << w;
  }
}

TEST(KeyJson, ShowsSetLimits) {
  Principal p = sample_key();
  p.limits.requests.per_minute = 60;
  p.limits.requests.per_day = 1000;
  p.limits.tokens.per_month = 500000;
  p.limits.ai_monthly_limit_minor = 2500;
  const json j = json::parse(key_json(p, TimeZone::utc(), 0));
  EXPECT_EQ(j["limits"]["requests"]["per_minute"], 60);
  EXPECT_TRUE(j["limits"]["requests"]["per_hour"].is_null());
  EXPECT_EQ(j["limits"]["requests"]["per_day"], 1000);
  EXPECT_EQ(j["limits"]["tokens"]["per_month"], 500000);
  EXPECT_EQ(j["ai_monthly_limit_minor"], 2500);
}

TEST(KeyJson, ShowsTheTokenPoolWithWhatIsLeft) {
  Principal p = sample_key();
  p.limits.tokens.quota = 1000;
  const json j = json::parse(key_json(p, TimeZone::utc(), 250));
  EXPECT_EQ(j["limits"]["tokens"]["quota"], json({{"limit", 1000}, {"used", 250}, {"remaining", 750}}));
}

TEST(KeyJson, NeverShowsANegativeRemainder) {
  Principal p = sample_key();
  p.limits.tokens.quota = 100;
  const json j = json::parse(key_json(p, TimeZone::utc(), 130));
  EXPECT_EQ(j["limits"]["tokens"]["quota"]["remaining"], 0);
}

TEST(KeyJson, RendersTimesInTheRequestedZone) {
  Principal p = sample_key();
  p.expires_at = *parse_iso8601("2027-01-31T00:00:00Z");
  const json j = json::parse(key_json(p, *TimeZone::parse("Europe/Moscow"), 0));
  EXPECT_EQ(j["expires_at"], "2027-01-31T03:00:00+03:00");
  EXPECT_EQ(j["created_at"], "2026-11-22T23:44:45+03:00");
}

TEST(KeyJson, ListsTheWildcardFirst) {
  Principal p = sample_key();
  p.scopes = ScopeSet{};
  p.scopes.add(Scope::reseller_read);
  p.scopes.add_wildcard();
  const json j = json::parse(key_json(p, TimeZone::utc(), 0));
  EXPECT_EQ(j["scopes"], json::array({"*", "reseller.read"}));
}

}  // namespace
}  // namespace mediagen::auth
