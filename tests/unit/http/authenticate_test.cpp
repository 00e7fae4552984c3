// The authentication stage's cache path: no store is reached. (The slow path is covered by the
// in-process HTTP test under tests/integration.)
#include <gtest/gtest.h>

#include "http/stages/stages.hpp"
#include "mediagen/auth/keys.hpp"
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

// A key of the shape generate_key() gives, distinct per name.
std::string key(std::string_view name) {
  std::string k = "mg_" + std::string(name);
  k.resize(46, 'x');
  return k;
}

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
    keys.put(p->key_hash, p, keys.begin_read());
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
  auto p = cache_key(key("valid"));
  auto r = authenticate(key("valid"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(ctx.principal.get(), p.get());
  EXPECT_EQ(counters.key_cache_hits.load(), 1u);
  EXPECT_EQ(counters.key_cache_misses.load(), 0u);
  EXPECT_EQ(counters.db_queries.load(), 0u);
}

TEST_F(AuthenticateTest, LeavesAnUncachedKeyToTheSlowPath) {
  EXPECT_FALSE(authenticate_cached(key("never_seen")).has_value());
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
  cache_key(key("valid"));
  request.headers.emplace_back("Authorization", "Bearer mg_valid");
  request.headers.emplace_back("Api-Key", key("valid"));
  EXPECT_EQ(message_key(authenticate(std::nullopt)), "auth.api_key.missing");
}

TEST_F(AuthenticateTest, RefusesAVeryLongKeyWithoutLookingItUp) {
  EXPECT_EQ(message_key(authenticate(std::string(10000, 'k'))), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesKeysOfTheWrongShapeBeforeAnyLookup) {
  const std::string good = key("shape");
  const std::vector<std::string> malformed = {
      "x", good.substr(0, 45), good + "x", "MG_" + good.substr(3), "mg-" + good.substr(3),
      good.substr(0, 10) + "=" + good.substr(11), good.substr(0, 10) + "." + good.substr(11),
      good.substr(0, 20) + std::string("\xc3\xa9") + good.substr(22), std::string(46, 'A'),
      good.substr(0, 30) + std::string(1, '\0') + good.substr(31)};
  for (const auto& k : malformed) {
    request.headers.clear();
    EXPECT_EQ(message_key(authenticate(k)), "auth.api_key.invalid") << k;
  }
  EXPECT_EQ(counters.keys_malformed.load(), malformed.size());
  EXPECT_EQ(counters.key_cache_hits.load(), 0u);
  EXPECT_EQ(keys.size(), 0u) << "a malformed key takes no place in the cache";
}

TEST_F(AuthenticateTest, LeavesAWellFormedUnknownKeyToTheSlowPath) {
  EXPECT_TRUE(auth::is_key_shaped(auth::generate_key()));
  EXPECT_FALSE(authenticate_cached(auth::generate_key()).has_value());
  EXPECT_EQ(counters.keys_malformed.load(), 0u);
}

TEST_F(AuthenticateTest, RefusesAKeyCachedAsUnknown) {
  keys.put(crypto::sha256(key("unknown")), nullptr, keys.begin_read());
  EXPECT_EQ(message_key(authenticate(key("unknown"))), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesADisabledKey) {
  cache_key(key("disabled"))->key_disabled = true;
  EXPECT_EQ(message_key(authenticate(key("disabled"))), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesAKeyOfABlockedUser) {
  cache_key(key("blocked"))->user_blocked = true;
  EXPECT_EQ(message_key(authenticate(key("blocked"))), "auth.api_key.invalid");
}

TEST_F(AuthenticateTest, RefusesAnExpiredKey) {
  cache_key(key("old"))->expires_at = clock.now() - 1s;
  EXPECT_EQ(message_key(authenticate(key("old"))), "auth.api_key.expired");
}

TEST_F(AuthenticateTest, RefusesAKeyExpiringThisVerySecond) {
  cache_key(key("edge"))->expires_at = clock.now();
  EXPECT_EQ(message_key(authenticate(key("edge"))), "auth.api_key.expired");
}

TEST_F(AuthenticateTest, AcceptsAKeyExpiringLater) {
  cache_key(key("later"))->expires_at = clock.now() + 1s;
  EXPECT_TRUE(authenticate(key("later")).has_value());
}

TEST_F(AuthenticateTest, PrefersInvalidOverExpiredForADisabledExpiredKey) {
  auto p = cache_key(key("both"));
  p->key_disabled = true;
  p->expires_at = clock.now() - 1s;
  EXPECT_EQ(message_key(authenticate(key("both"))), "auth.api_key.invalid");
}

// A Bearer route (the OpenAI-compatible surface) reads Authorization alone; the spec's routes
// never do.
TEST_F(AuthenticateTest, ABearerRouteReadsAuthorizationAlone) {
  auto p = cache_key(key("bearer"));
  Route bearer_route;
  bearer_route.key_header = KeyHeader::bearer;
  ctx.route = &bearer_route;
  request.headers = {{"Authorization", "Bearer " + key("bearer")}};
  auto r = stages::authenticate_cached(ctx, keys, counters, clock.now());
  ASSERT_TRUE(r && r->has_value());
  EXPECT_EQ(ctx.principal.get(), p.get());

  request.headers = {{"X-API-KEY", key("bearer")}};
  r = stages::authenticate_cached(ctx, keys, counters, clock.now());
  ASSERT_TRUE(r && !r->has_value());
  EXPECT_EQ(message_key(*r), "auth.api_key.missing");

  request.headers = {{"Authorization", "Basic " + key("bearer")}};
  r = stages::authenticate_cached(ctx, keys, counters, clock.now());
  ASSERT_TRUE(r && !r->has_value());
  EXPECT_EQ(message_key(*r), "auth.api_key.missing");

  Route api_route;
  ctx.route = &api_route;
  request.headers = {{"Authorization", "Bearer " + key("bearer")}};
  r = stages::authenticate_cached(ctx, keys, counters, clock.now());
  ASSERT_TRUE(r && !r->has_value());
  EXPECT_EQ(message_key(*r), "auth.api_key.missing");
}

}  // namespace
}  // namespace mediagen::http
