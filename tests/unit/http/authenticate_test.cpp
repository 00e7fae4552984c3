// The authentication stage's cache path: no store is reached. (The slow path is covered by the
// in-process HTTP test under tests/integration.)
#include <gtest/gtest.h>

#include "http/stages/stages.hpp"
#include "mediagen/http/envelope.hpp"

namespace mediagen::http {
namespace {

using namespace std::chrono_literals;

class HeaderRequest final : public RequestView {
 public:
  std::vector<std::pair<std::string, std::string>> headers;
  Method method() const override { return Method::get; }
  std::string_view method_text() const override { return "GET"; }
  std::string_view target() const override { return "/api/key"; }
  std::optional<std::string_view> header(std::string_view name) const override {
    for (const auto& [k, v] : headers) {
      if (k == name) return std::string_view(v);
    }
    return std::nullopt;
  }
  std::string_view body() const override { return {}; }
};

class FixedClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint{std::chrono::seconds{1'800'000'000}}; }
};

class AuthenticateTest : public ::testing::Test {
 protected:
  // nullopt: the key is not in the cache and the slow path would have to look it up.
  std::optional<Result<void>> authenticate_cached(std::optional<std::string> key) {
    if (key) request.headers.emplace_back("X-API-KEY", *key);
    return stages::authenticate_cached(ctx, keys, counters, clock.now());
  }

  Result<void> authenticate(std::optional<std::string> key) {
    auto r = authenticate_cached(std::move(key));
    if (!r) {
      ADD_FAILURE() << "the key was not answered from the cache";
      return ApiError::internal_error("cache miss");
    }
    return *r;
  }

  std::shared_ptr<auth::Principal> cache_key(const std::string& key) {
    auto p = std::make_shared<auth::Principal>();
    p->key_id = ApiKeyId{5};
    p->user_id = UserId{9};
    p->key_hash = crypto::sha256(key);
    keys.put(p->key_hash, p);
    return p;
  }

  static std::string message_key(const Result<void>& r) { return r.has_value() ? "<accepted>" : r.error().message.key; }

  FixedClock clock;
  InfraCounters counters;
  auth::KeyCache keys{3600s, clock};
  HeaderRequest request;
  RequestContext ctx{request};
};

TEST_F(AuthenticateTest, AcceptsACachedKeyWithoutAStoreRoundTrip) {
  auto p = cache_key("mg_valid");
  auto r = authenticate("mg_valid");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(ctx.principal.get(), p.get());
  EXPECT_EQ(counters.key_cache_hits.load(), 1u);
  EXPECT_EQ(counters.key_cache_misses.load(), 0u);
  EXPECT_EQ(counters.db_queries.load(), 0u);
}

TEST_F(AuthenticateTest, LeavesAnUncachedKeyToTheSlowPath) {
  EXPECT_FALSE(authenticate_cached("mg_never_seen").has_value());
  EXPECT_EQ(counters.key_cache_hits.load(), 0u);
  EXPECT_EQ(ctx.principal, nullptr);
}

TEST_F(AuthenticateTest, RefusesAMissingKey) {
  auto r = authenticate(std::nullopt);
  EXPECT_EQ(message_key(r), "auth.api_key.missing");
  EXPECT_EQ(r.error().status, 401);
}

TEST_F(AuthenticateTest, RefusesAnEmptyKeyAsMissing) {
  EXPECT_EQ(message_key(authenticate("")), "auth.api_key.missing");
}

TEST_F(AuthenticateTest, ReadsOnlyTheXApiKeyHeader) {
  cache_key("mg_valid");
  request.headers.emplace_back("Authorization", "Bearer mg_valid");
  request.headers.emplace_back("Api-Key", "mg_valid");
  EXPECT_EQ(message_key(authenticate(std::nullopt)), "auth.api_key.missing");
}

TEST_F(AuthenticateTest, RefusesAVeryLongKeyWithoutLookingItUp) {
  EXPECT_EQ(message_key(authenticate(std::string(10000, 'k'))), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesAKeyCachedAsUnknown) {
  keys.put(crypto::sha256("mg_unknown"), nullptr);
  EXPECT_EQ(message_key(authenticate("mg_unknown")), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesADisabledKey) {
  cache_key("mg_disabled")->key_disabled = true;
  EXPECT_EQ(message_key(authenticate("mg_disabled")), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesAKeyOfABlockedUser) {
  cache_key("mg_blocked")->user_blocked = true;
  EXPECT_EQ(message_key(authenticate("mg_blocked")), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesAnExpiredKey) {
  cache_key("mg_old")->expires_at = clock.now() - 1s;
  EXPECT_EQ(message_key(authenticate("mg_old")), "auth.api_key.expired");
}

TEST_F(AuthenticateTest, RefusesAKeyExpiringThisVerySecond) {
  cache_key("mg_edge")->expires_at = clock.now();
  EXPECT_EQ(message_key(authenticate("mg_edge")), "auth.api_key.expired");
}

TEST_F(AuthenticateTest, AcceptsAKeyExpiringLater) {
  cache_key("mg_later")->expires_at = clock.now() + 1s;
  EXPECT_TRUE(authenticate("mg_later").has_value());
}

TEST_F(AuthenticateTest, PrefersInvalidOverExpiredForADisabledExpiredKey) {
  auto p = cache_key("mg_both");
  p->key_disabled = true;
  p->expires_at = clock.now() - 1s;
  EXPECT_EQ(message_key(authenticate("mg_both")), "auth.api_key.invalid");
}

}  // namespace
}  // namespace mediagen::http
