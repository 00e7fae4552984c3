#include <gtest/gtest.h>

#include <algorithm>

#include "mediagen/account/users.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

class KeysTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    user = account::create_user(*db, {"owner@example.com", "Owner", Locale::ru, {}}).id;
  }
  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  auth::CreatedKey create(auth::ScopeSet scopes = *auth::preset("read_only")) {
    auth::NewKey request;
    request.user = user;
    request.scopes = scopes;
    request.name = "ci";
    return auth::create_key(*db, request);
  }

  std::string row_sql(ApiKeyId id, const std::string& expr) {
    return "SELECT " + expr + " FROM api_keys WHERE id = " + std::to_string(id.value);
  }

  std::optional<db::Db> db;
  UserId user;
};

TEST_F(KeysTest, CreatesAKeyShownOnceInItsPlainForm) {
  const auto created = create();
  ASSERT_EQ(created.plaintext.size(), 46u) << created.plaintext;
  EXPECT_EQ(created.plaintext.substr(0, 3), "mg_");
  EXPECT_TRUE(std::all_of(created.plaintext.begin() + 3, created.plaintext.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  })) << created.plaintext;
  EXPECT_GT(created.key.key_id.value, 0);
  EXPECT_EQ(created.key.user_id, user);
  EXPECT_EQ(created.key.key_name, "ci");
  EXPECT_EQ(created.key.key_prefix, created.plaintext.substr(0, 8));
  EXPECT_EQ(created.key.scopes, *auth::preset("read_only"));
  EXPECT_FALSE(created.key.key_disabled);
  EXPECT_FALSE(created.key.user_blocked);
  EXPECT_EQ(created.key.user_locale, Locale::ru);
}

TEST_F(KeysTest, StoresTheSha256OfThePlaintext) {
  const auto created = create();
  EXPECT_EQ(query_value(db_url, row_sql(created.key.key_id, "encode(key_hash, 'hex')")),
            crypto::to_hex(crypto::sha256(created.plaintext)));
  EXPECT_EQ(created.key.key_hash, crypto::sha256(created.plaintext));
}

TEST_F(KeysTest, StoresThePlaintextNowhere) {
  const auto created = create();
  const std::string secret = created.plaintext.substr(3);
  const std::string everything = query_value(db_url, "SELECT string_agg(row_to_json(k)::text, ' ') FROM api_keys k");
  ASSERT_FALSE(everything.empty());
  EXPECT_EQ(everything.find(created.plaintext), std::string::npos) << everything;
  EXPECT_EQ(everything.find(secret), std::string::npos) << everything;
  // Nor in any other table of the schema.
  const std::string anywhere = query_value(
      db_url, "SELECT count(*) FROM (SELECT row_to_json(u)::text AS t FROM users u UNION ALL"
              " SELECT row_to_json(l)::text FROM ledger_entries l UNION ALL SELECT row_to_json(t)::text FROM ledger_txns t"
              " UNION ALL SELECT row_to_json(a)::text FROM ledger_accounts a UNION ALL"
              " SELECT row_to_json(i)::text FROM idempotency_keys i) x"
              " WHERE t LIKE '%" + secret + "%'");
  EXPECT_EQ(anywhere, "0");
}

TEST_F(KeysTest, GeneratesADifferentKeyEachTime) {
  const auto a = create();
  const auto b = create();
  EXPECT_NE(a.plaintext, b.plaintext);
  EXPECT_NE(a.key.key_hash, b.key.key_hash);
  EXPECT_NE(a.key.key_id, b.key.key_id);
}

TEST_F(KeysTest, FindsAKeyByTheHashOfItsPlaintext) {
  const auto created = create();
  auto found = auth::find_key_by_hash(*db, crypto::sha256(created.plaintext));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->key_id, created.key.key_id);
  EXPECT_EQ(found->user_id, user);
  EXPECT_EQ(found->key_hash, crypto::sha256(created.plaintext));
  EXPECT_EQ(found->scopes, *auth::preset("read_only"));
  EXPECT_EQ(found->key_prefix, created.plaintext.substr(0, 8));
  EXPECT_FALSE(found->key_disabled);
  EXPECT_FALSE(found->expires_at.has_value());
  EXPECT_EQ(found->created_at, created.key.created_at);
}

TEST_F(KeysTest, FindsNothingForAnUnknownHash) {
  create();
  EXPECT_FALSE(auth::find_key_by_hash(*db, crypto::sha256("mg_not_a_key")).has_value());
  EXPECT_FALSE(auth::find_key_by_hash(*db, crypto::Sha256Digest{}).has_value());
}

TEST_F(KeysTest, RoundTripsLimitsExpiryAndScopes) {
  auth::NewKey request;
  request.user = user;
  request.name = "limited";
  request.scopes.add_wildcard();
  request.scopes.add(auth::Scope::reseller_write);
  request.expires_at = *parse_iso8601("2031-05-06T07:08:09Z");
  request.limits.requests.per_minute = 60;
  request.limits.requests.per_hour = 600;
  request.limits.tokens.per_day = 1000;
  request.limits.tokens.per_month = 20000;
  request.limits.tokens.quota = 0;
  request.limits.ai_monthly_limit_minor = 2500;
  const auto created = auth::create_key(*db, request);
  auto found = auth::find_key_by_hash(*db, crypto::sha256(created.plaintext));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->scopes.names(), (std::vector<std::string>{"*", "reseller.write"}));
  EXPECT_EQ(found->expires_at, request.expires_at);
  EXPECT_EQ(found->limits.requests.per_minute, 60);
  EXPECT_EQ(found->limits.requests.per_hour, 600);
  EXPECT_FALSE(found->limits.requests.per_day.has_value());
  EXPECT_FALSE(found->limits.tokens.per_minute.has_value());
  EXPECT_EQ(found->limits.tokens.per_day, 1000);
  EXPECT_EQ(found->limits.tokens.per_month, 20000);
  EXPECT_EQ(found->limits.tokens.quota, 0);
  EXPECT_EQ(found->limits.ai_monthly_limit_minor, 2500);
}

TEST_F(KeysTest, AllowsAKeyWithoutScopes) {
  const auto created = create(auth::ScopeSet{});
  auto found = auth::find_key_by_hash(*db, crypto::sha256(created.plaintext));
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->scopes.empty());
  EXPECT_EQ(query_value(db_url, row_sql(created.key.key_id, "cardinality(scopes)")), "0");
}

TEST_F(KeysTest, RefusesAKeyForAnUnknownUser) {
  auth::NewKey request;
  request.user = UserId{999999};
  EXPECT_THROW(auth::create_key(*db, request), std::invalid_argument);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM api_keys"), "0");
}

TEST_F(KeysTest, DisablesAKey) {
  const auto created = create();
  auto disabled = auth::disable_key(*db, created.key.key_id);
  ASSERT_TRUE(disabled.has_value());
  EXPECT_TRUE(disabled->key_disabled);
  EXPECT_EQ(disabled->key_hash, crypto::sha256(created.plaintext));
  auto found = auth::find_key_by_hash(*db, crypto::sha256(created.plaintext));
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->key_disabled);
}

TEST_F(KeysTest, KeepsTheFirstDisableTime) {
  const auto created = create();
  auth::disable_key(*db, created.key.key_id);
  const std::string first = query_value(db_url, row_sql(created.key.key_id, "disabled_at"));
  ASSERT_FALSE(first.empty());
  auto again = auth::disable_key(*db, created.key.key_id);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->key_disabled);
  EXPECT_EQ(query_value(db_url, row_sql(created.key.key_id, "disabled_at")), first);
}

TEST_F(KeysTest, DisablesNothingForAnUnknownId) {
  create();
  EXPECT_FALSE(auth::disable_key(*db, ApiKeyId{999999}).has_value());
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM api_keys WHERE disabled_at IS NOT NULL"), "0");
}

TEST_F(KeysTest, ReportsTheOwnersBlockOnTheKey) {
  const auto created = create();
  account::set_blocked(*db, user, true);
  auto found = auth::find_key_by_hash(*db, crypto::sha256(created.plaintext));
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->user_blocked);
  account::set_blocked(*db, user, false);
  EXPECT_FALSE(auth::find_key_by_hash(*db, crypto::sha256(created.plaintext))->user_blocked);
}

TEST_F(KeysTest, ReportsADeletedOwnerAsBlocked) {
  const auto created = create();
  query_value(db_url, "UPDATE users SET deleted_at = now() WHERE id = " + std::to_string(user.value));
  auto found = auth::find_key_by_hash(*db, crypto::sha256(created.plaintext));
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->user_blocked);
}

TEST_F(KeysTest, ReadsTheTokenPoolUsage) {
  auth::NewKey request;
  request.user = user;
  request.limits.tokens.quota = 1000;
  const auto created = auth::create_key(*db, request);
  EXPECT_EQ(auth::token_quota_used(*db, created.key.key_id), 0);
  query_value(db_url, "UPDATE api_keys SET tokens_quota_used = 250 WHERE id = " + std::to_string(created.key.key_id.value));
  EXPECT_EQ(auth::token_quota_used(*db, created.key.key_id), 250);
  EXPECT_EQ(auth::token_quota_used(*db, ApiKeyId{999999}), 0);
}

}  // namespace
}  // namespace mediagen::test
