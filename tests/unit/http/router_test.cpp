#include "mediagen/http/router.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mediagen::http {
namespace {

Route route(Method method, std::string pattern) {
  Route r;
  r.method = method;
  r.pattern = std::move(pattern);
  r.handler = [](RequestContext&) -> boost::asio::awaitable<Result<Reply>> { co_return Reply{}; };
  return r;
}

class RouterTest : public ::testing::Test {
 protected:
  RouterTest() : router("/api") {
    router.add_root(route(Method::get, "/healthz"));
    router.add_api(route(Method::get, "/user"));
    router.add_api(route(Method::post, "/orders"));
    router.add_api(route(Method::get, "/orders/{order}"));
    router.add_api(route(Method::del, "/orders/{order}"));
    router.add_api(route(Method::get, "/orders/{order}/items/{item}"));
    router.add_api(route(Method::post, "/storage/url"));
  }

  const RouteMatch* matched(Method method, std::string_view path) {
    last = router.match(method, path);
    return std::get_if<RouteMatch>(&last);
  }

  Router router;
  MatchResult last;
};

TEST_F(RouterTest, MatchesAStaticRouteUnderTheApiPrefix) {
  const auto* m = matched(Method::get, "/api/user");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->route->pattern, "/user");
  EXPECT_EQ(m->route->method, Method::get);
  EXPECT_TRUE(m->params.items.empty());
}

TEST_F(RouterTest, MatchesARootRouteOutsideThePrefix) {
  const auto* m = matched(Method::get, "/healthz");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->route->pattern, "/healthz");
  EXPECT_TRUE(std::holds_alternative<NotFound>(router.match(Method::get, "/api/healthz")));
}

TEST_F(RouterTest, CapturesAPathParameter) {
  const auto* m = matched(Method::get, "/api/orders/42");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->route->pattern, "/orders/{order}");
  EXPECT_EQ(m->params.get("order"), "42");
  EXPECT_FALSE(m->params.get("item").has_value());
}

TEST_F(RouterTest, CapturesSeveralPathParameters) {
  const auto* m = matched(Method::get, "/api/orders/ord_1/items/7");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->params.get("order"), "ord_1");
  EXPECT_EQ(m->params.get("item"), "7");
}

TEST_F(RouterTest, MatchesMethodsOnTheSamePathSeparately) {
  const auto* m = matched(Method::del, "/api/orders/5");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->route->method, Method::del);
  const auto* post = matched(Method::post, "/api/orders");
  ASSERT_NE(post, nullptr);
  EXPECT_EQ(post->route->pattern, "/orders");
}

TEST_F(RouterTest, AnswersMethodNotAllowedWithTheAllowList) {
  auto result = router.match(Method::put, "/api/orders/5");
  const auto* na = std::get_if<MethodNotAllowed>(&result);
  ASSERT_NE(na, nullptr);
  EXPECT_EQ(na->allow, "GET, HEAD, DELETE");
}

TEST_F(RouterTest, ListsHeadInTheAllowListOfGetRoutes) {
  auto result = router.match(Method::post, "/api/user");
  const auto* na = std::get_if<MethodNotAllowed>(&result);
  ASSERT_NE(na, nullptr);
  EXPECT_EQ(na->allow, "GET, HEAD");
}

TEST_F(RouterTest, DoesNotListHeadForPostOnlyRoutes) {
  auto result = router.match(Method::get, "/api/storage/url");
  const auto* na = std::get_if<MethodNotAllowed>(&result);
  ASSERT_NE(na, nullptr);
  EXPECT_EQ(na->allow, "POST");
}

TEST_F(RouterTest, MatchesHeadAgainstTheGetRoute) {
  const auto* m = matched(Method::head, "/api/user");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->route->method, Method::get);
  EXPECT_NE(matched(Method::head, "/api/orders/9"), nullptr);
}

TEST_F(RouterTest, AnswersMethodNotAllowedForHeadOnAPostOnlyRoute) {
  EXPECT_TRUE(std::holds_alternative<MethodNotAllowed>(router.match(Method::head, "/api/storage/url")));
}

TEST_F(RouterTest, AnswersNotFoundForUnknownPaths) {
  for (const char* path : {"/api/nope", "/api", "/", "", "/user", "/api/user/extra", "/api/orders/1/items",
                           "/api/orders/1/items/2/more", "/API/user", "/apiuser"}) {
    EXPECT_TRUE(std::holds_alternative<NotFound>(router.match(Method::get, path))) << path;
  }
}

TEST_F(RouterTest, AnswersNotFoundForAnUnknownMethodOnAnUnknownPath) {
  EXPECT_TRUE(std::holds_alternative<NotFound>(router.match(Method::other, "/api/nope")));
}

TEST_F(RouterTest, AnswersMethodNotAllowedForAnUnrecognisedMethodOnAKnownPath) {
  EXPECT_TRUE(std::holds_alternative<MethodNotAllowed>(router.match(Method::other, "/api/user")));
}

TEST_F(RouterTest, TreatsATrailingSlashAsThePathWithoutIt) {
  const auto* m = matched(Method::get, "/api/user/");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->route->pattern, "/user");
  const auto* p = matched(Method::get, "/api/orders/42/");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->params.get("order"), "42");
}

TEST_F(RouterTest, NeverCapturesAnEmptyParameter) {
  // "/api/orders/" has no order segment: it is the collection path, POST only.
  auto result = router.match(Method::get, "/api/orders/");
  const auto* na = std::get_if<MethodNotAllowed>(&result);
  ASSERT_NE(na, nullptr);
  EXPECT_EQ(na->allow, "POST");
  EXPECT_TRUE(std::holds_alternative<NotFound>(router.match(Method::get, "/api/orders//items/1")));
}

TEST_F(RouterTest, AnswersNotFoundForAPathWithVeryManySegments) {
  std::string path = "/api";
  for (int i = 0; i < 1000; ++i) path += "/x";
  EXPECT_TRUE(std::holds_alternative<NotFound>(router.match(Method::get, path)));
}

TEST_F(RouterTest, ListsFullPatternsInMetricsIndexOrder) {
  const auto patterns = router.patterns();
  ASSERT_EQ(patterns.size(), 7u);
  EXPECT_EQ(patterns[0], "GET /healthz");
  EXPECT_EQ(patterns[1], "GET /api/user");
  EXPECT_EQ(patterns[3], "GET /api/orders/{order}");
  const auto* m = matched(Method::get, "/api/orders/1");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->route->metrics_index, 3u);
}

TEST(Router, WorksWithTheRootAsApiPrefix) {
  Router router("/");
  router.add_api(route(Method::get, "/user"));
  EXPECT_TRUE(std::holds_alternative<RouteMatch>(router.match(Method::get, "/user")));
  EXPECT_EQ(router.patterns()[0], "GET /user");
}

TEST(Router, NamesMethodsInUpperCase) {
  EXPECT_EQ(to_string(Method::get), "GET");
  EXPECT_EQ(to_string(Method::head), "HEAD");
  EXPECT_EQ(to_string(Method::post), "POST");
  EXPECT_EQ(to_string(Method::put), "PUT");
  EXPECT_EQ(to_string(Method::patch), "PATCH");
  EXPECT_EQ(to_string(Method::del), "DELETE");
  EXPECT_EQ(to_string(Method::options), "OPTIONS");
}

}  // namespace
}  // namespace mediagen::http
