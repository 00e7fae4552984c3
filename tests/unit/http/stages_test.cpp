// The pipeline's stage helpers, driven through a fake exchange: no sockets, no stores.
#include "http/stages/stages.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "integration/stepped_clock.hpp"
#include "unit/http/run_sync.hpp"
#include "mediagen/http/envelope.hpp"

namespace mediagen::http {
namespace {

using namespace std::chrono_literals;

class FakeRequest final : public RequestView {
 public:
  Method method_ = Method::get;
  std::string method_text_ = "GET";
  std::string target_ = "/";
  std::vector<std::pair<std::string, std::string>> headers_;
  std::string body_;

  Method method() const override { return method_; }
  std::string_view method_text() const override { return method_text_; }
  std::string_view target() const override { return target_; }
  std::optional<std::string_view> header(std::string_view name) const override {
    for (const auto& [k, v] : headers_) {
      if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          })) {
        return std::string_view(v);
      }
    }
    return std::nullopt;
  }
  std::vector<std::string_view> header_values(std::string_view name) const override {
    std::vector<std::string_view> out;
    for (const auto& [k, v] : headers_) {
      if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          })) {
        out.emplace_back(v);
      }
    }
    return out;
  }
  std::string_view body() const override { return body_; }
};

class FakeExchange final : public Exchange {
 public:
  FakeRequest request_;
  std::string peer_ = "127.0.0.1";
  std::optional<std::uint64_t> content_length_;
  bool has_body_ = false;
  BodyStatus read_status_ = BodyStatus::ok;
  std::size_t read_limit_ = 0;
  int reads_ = 0;

  const RequestView& request() const override { return request_; }
  std::string_view peer_ip() const override { return peer_; }
  std::optional<std::uint64_t> content_length() const override { return content_length_; }
  bool has_body() const override { return has_body_; }
  boost::asio::awaitable<BodyStatus> read_body(std::size_t limit) override {
    ++reads_;
    read_limit_ = limit;
    co_return read_status_;
  }

  void set_body(std::string body, std::string content_type = "application/json") {
    request_.body_ = std::move(body);
    content_length_ = request_.body_.size();
    has_body_ = true;
    if (!content_type.empty()) request_.headers_.emplace_back("Content-Type", std::move(content_type));
  }
};

Route json_route(std::size_t body_limit = 1024) {
  Route r;
  r.method = Method::post;
  r.pattern = "/echo";
  r.access = Access::open;
  r.body_limit = body_limit;
  r.json_body = true;
  return r;
}

std::string stage_error_body(const ApiError& e) { return error_body(e, Locale::en, TimeZone::utc()); }

// ---- json_depth ----

TEST(JsonDepth, CountsTheDeepestNesting) {
  EXPECT_EQ(stages::json_depth(""), 0u);
  EXPECT_EQ(stages::json_depth("1"), 0u);
  EXPECT_EQ(stages::json_depth("\"x\""), 0u);
  EXPECT_EQ(stages::json_depth("{}"), 1u);
  EXPECT_EQ(stages::json_depth("[[[]]]"), 3u);
  EXPECT_EQ(stages::json_depth(R"({"a":[1,{"b":[]}],"c":{}})"), 4u);
  EXPECT_EQ(stages::json_depth("[[]][[[]]]"), 3u);
}

TEST(JsonDepth, IgnoresBracketsInsideStrings) {
  EXPECT_EQ(stages::json_depth(R"({"a":"[[[[{{{{"})"), 1u);
  EXPECT_EQ(stages::json_depth(R"({"a":"\"[[[["})"), 1u);
  EXPECT_EQ(stages::json_depth(R"({"a\\":[[1]]})"), 3u);
}

TEST(JsonDepth, NeverGoesBelowZeroOnStrayClosers) {
  EXPECT_EQ(stages::json_depth("]]]]}}[["), 2u);
}

TEST(JsonDepth, MeasuresAHundredThousandLevelsWithoutRecursion) {
  EXPECT_EQ(stages::json_depth(std::string(100000, '[') + std::string(100000, ']')), 100000u);
  EXPECT_EQ(stages::json_depth(std::string(100000, '{')), 100000u);
}

// ---- split_target ----

TEST(SplitTarget, SeparatesPathAndQuery) {
  std::string path;
  std::string_view query;
  stages::split_target("/api/orders?page=2&per_page=10", path, query);
  EXPECT_EQ(path, "/api/orders");
  EXPECT_EQ(query, "page=2&per_page=10");
}

TEST(SplitTarget, LeavesTheQueryEmptyWhenThereIsNone) {
  std::string path;
  std::string_view query = "stale";
  stages::split_target("/api/user", path, query);
  EXPECT_EQ(path, "/api/user");
  EXPECT_TRUE(query.empty());
  stages::split_target("/api/user?", path, query);
  EXPECT_EQ(path, "/api/user");
  EXPECT_TRUE(query.empty());
}

TEST(SplitTarget, PercentDecodesThePath) {
  std::string path;
  std::string_view query;
  stages::split_target("/api/%75ser", path, query);
  EXPECT_EQ(path, "/api/user");
  stages::split_target("/a%20b/%C3%A9/%2f%2F", path, query);
  EXPECT_EQ(path, "/a b/\xC3\xA9///");
}

TEST(SplitTarget, DecodesAnEscapeAtTheVeryEnd) {
  std::string path;
  std::string_view query;
  stages::split_target("/a%41", path, query);
  EXPECT_EQ(path, "/aA");
  stages::split_target("%41", path, query);
  EXPECT_EQ(path, "A");
}

TEST(SplitTarget, KeepsMalformedEscapesLiterally) {
  std::string path;
  std::string_view query;
  stages::split_target("/a%zz/b%4/c%", path, query);
  EXPECT_EQ(path, "/a%zz/b%4/c%");
  stages::split_target("/a%4g", path, query);
  EXPECT_EQ(path, "/a%4g");
}

TEST(SplitTarget, LeavesTheQueryEncoded) {
  std::string path;
  std::string_view query;
  stages::split_target("/p%41th?q=%41", path, query);
  EXPECT_EQ(path, "/pAth");
  EXPECT_EQ(query, "q=%41");
}

TEST(SplitTarget, ReplacesWhatThePathHeldBefore) {
  std::string path = "old contents";
  std::string_view query;
  stages::split_target("/new", path, query);
  EXPECT_EQ(path, "/new");
}

// ---- client_ip ----

TEST(ClientIp, IsThePeerWithoutTrustedProxies) {
  FakeExchange ex;
  ex.peer_ = "203.0.113.7";
  ex.request_.headers_.emplace_back("X-Forwarded-For", "1.1.1.1");
  EXPECT_EQ(stages::client_ip(ex, {}), "203.0.113.7");
}

TEST(ClientIp, IgnoresForwardedForFromAnUntrustedPeer) {
  FakeExchange ex;
  ex.peer_ = "203.0.113.7";
  ex.request_.headers_.emplace_back("X-Forwarded-For", "1.1.1.1");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1"}), "203.0.113.7");
}

TEST(ClientIp, TakesTheRightmostEntryThatIsNotATrustedProxy) {
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  ex.request_.headers_.emplace_back("X-Forwarded-For", " 198.51.100.9 , 10.0.0.2, 10.0.0.1");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.2", "10.0.0.1"}), "198.51.100.9");
}

TEST(ClientIp, IgnoresWhatTheClientWroteLeftOfTheAddressOurProxySaw) {
  // An appending proxy turns the client's own "X-Forwarded-For: 6.6.6.6" into "6.6.6.6, <peer>".
  for (const char* value : {"6.6.6.6, 198.51.100.9", "1.1.1.1, 2.2.2.2, 198.51.100.9", "unknown, 198.51.100.9",
                            ",198.51.100.9", "10.0.0.1, 198.51.100.9"}) {
    FakeExchange ex;
    ex.peer_ = "10.0.0.1";
    ex.request_.headers_.emplace_back("X-Forwarded-For", value);
    EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1"}), "198.51.100.9") << "'" << value << "'";
  }
}

TEST(ClientIp, ReadsRepeatedForwardedForLinesAsOneListInOrder) {
  // The client's own line first, then the line its proxy added.
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  ex.request_.headers_.emplace_back("X-Forwarded-For", "6.6.6.6, 7.7.7.7");
  ex.request_.headers_.emplace_back("x-forwarded-for", "198.51.100.9");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1"}), "198.51.100.9");
  ex.request_.headers_.emplace_back("X-Forwarded-For", "10.0.0.2");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1", "10.0.0.2"}), "198.51.100.9");
}

TEST(ClientIp, StopsAtTheFirstUntrustedEntryFromTheRight) {
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  ex.request_.headers_.emplace_back("X-Forwarded-For", "198.51.100.9, 10.0.0.5, 10.0.0.2");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.2", "10.0.0.1"}), "10.0.0.5");
}

TEST(ClientIp, TakesTheLeftmostEntryWhenAllAreTrustedProxies) {
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  ex.request_.headers_.emplace_back("X-Forwarded-For", "10.0.0.3, ::ffff:10.0.0.2");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1", "10.0.0.2", "10.0.0.3"}), "10.0.0.3");
}

TEST(ClientIp, UnwrapsIpv4MappedEntries) {
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  ex.request_.headers_.emplace_back("X-Forwarded-For", "6.6.6.6, ::ffff:198.51.100.9, ::ffff:10.0.0.2");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1", "10.0.0.2"}), "198.51.100.9");
}

TEST(ClientIp, AcceptsAnIpv6ForwardedAddress) {
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  ex.request_.headers_.emplace_back("X-Forwarded-For", "2001:db8::1");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1"}), "2001:db8::1");
}

TEST(ClientIp, FallsBackToATrustedPeerWithoutForwardedFor) {
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1"}), "10.0.0.1");
}

TEST(ClientIp, FallsBackToTheTrustedPeerWhenForwardedForIsNotAnAddress) {
  for (const char* value : {"", " ", "unknown", "1.2.3.4; DROP TABLE", "evil.example.com", "<script>",
                            "1.2.3.4:80 x", "1.2.3.4,", "1.2.3.4, junk", "1.2.3.4,,10.0.0.2", "1.2.3.4, evil, 10.0.0.2"}) {
    FakeExchange ex;
    ex.peer_ = "10.0.0.1";
    ex.request_.headers_.emplace_back("X-Forwarded-For", value);
    EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1", "10.0.0.2"}), "10.0.0.1") << "'" << value << "'";
  }
  FakeExchange ex;
  ex.peer_ = "10.0.0.1";
  ex.request_.headers_.emplace_back("X-Forwarded-For", std::string(1000, '1'));
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1"}), "10.0.0.1");
}

TEST(ClientIp, UnwrapsAnIpv4MappedPeer) {
  FakeExchange ex;
  ex.peer_ = "::ffff:10.0.0.1";
  EXPECT_EQ(stages::client_ip(ex, {}), "10.0.0.1");
  ex.request_.headers_.emplace_back("X-Forwarded-For", "198.51.100.9");
  EXPECT_EQ(stages::client_ip(ex, {"10.0.0.1"}), "198.51.100.9");
}

// ---- check_ip_ban ----

TEST(CheckIpBan, LetsAnUnbannedClientThrough) {
  FakeRequest req;
  RequestContext ctx{req};
  ctx.client_ip = "1.2.3.4";
  cache::BanList bans;
  cache::BanLadder ladder({});
  EXPECT_FALSE(stages::check_ip_ban(ctx, bans, ladder, SystemClock{}.now()).has_value());
}

TEST(CheckIpBan, RefusesABannedClientWithTheBanDetails) {
  const TimePoint now = *parse_iso8601("2026-11-22T20:44:45Z");
  FakeRequest req;
  RequestContext ctx{req};
  ctx.client_ip = "1.2.3.4";
  cache::BanList bans;
  bans.put("1.2.3.4", cache::Ban{now + 100s, 2});
  cache::BanLadder ladder({.ladder_seconds = {60, 120}});
  auto e = stages::check_ip_ban(ctx, bans, ladder, now);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status, 429);
  const auto b = nlohmann::json::parse(stage_error_body(*e));
  EXPECT_EQ(b["reason"], "ip_banned");
  EXPECT_EQ(b["retry_after"], 100);
  EXPECT_EQ(b["ban_step"], 2);
  EXPECT_EQ(b["banned_until"], "2026-11-22T20:46:25+00:00");
  EXPECT_EQ(b["ban_ladder_seconds"], nlohmann::json::array({60, 120}));
}

TEST(CheckIpBan, AnnouncesAtLeastOneSecondToWait) {
  const TimePoint now = *parse_iso8601("2026-11-22T20:44:45Z");
  FakeRequest req;
  RequestContext ctx{req};
  ctx.client_ip = "1.2.3.4";
  cache::BanList bans;
  bans.put("1.2.3.4", cache::Ban{now + 300ms, 1});
  cache::BanLadder ladder({});
  auto e = stages::check_ip_ban(ctx, bans, ladder, now);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(nlohmann::json::parse(stage_error_body(*e))["retry_after"], 1);
}

// ---- BanList ----

TEST(BanList, ForgetsABanOnceItEnds) {
  const TimePoint now = SystemClock{}.now();
  cache::BanList bans;
  bans.put("1.2.3.4", cache::Ban{now + 10s, 1});
  EXPECT_TRUE(bans.check("1.2.3.4", now + 9s).has_value());
  EXPECT_FALSE(bans.check("1.2.3.4", now + 10s).has_value());
  EXPECT_FALSE(bans.check("1.2.3.5", now).has_value());
}

TEST(BanList, KeepsTheLongerOfTwoBans) {
  const TimePoint now = SystemClock{}.now();
  cache::BanList bans;
  bans.put("1.2.3.4", cache::Ban{now + 200s, 3});
  bans.put("1.2.3.4", cache::Ban{now + 100s, 2});
  auto ban = bans.check("1.2.3.4", now);
  ASSERT_TRUE(ban.has_value());
  EXPECT_EQ(ban->step, 3);
  bans.put("1.2.3.4", cache::Ban{now + 300s, 4});
  EXPECT_EQ(bans.check("1.2.3.4", now)->step, 4);
}

TEST(BanList, ReplacesEveryBanAtOnce) {
  const TimePoint now = SystemClock{}.now();
  cache::BanList bans;
  bans.put("1.1.1.1", cache::Ban{now + 100s, 1});
  bans.replace_all({{"2.2.2.2", cache::Ban{now + 100s, 1}}});
  EXPECT_FALSE(bans.check("1.1.1.1", now).has_value());
  EXPECT_TRUE(bans.check("2.2.2.2", now).has_value());
}

// ---- check_body_size ----

TEST(CheckBodySize, RefusesADeclaredBodyOverTheRouteCap) {
  FakeExchange ex;
  ex.has_body_ = true;
  ex.content_length_ = 1025;
  Route r = json_route(1024);
  RequestContext ctx{ex.request_};
  ctx.route = &r;
  auto result = stages::check_body_size(ctx, ex);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().status, 413);
  EXPECT_TRUE(result.error().close_connection);
}

TEST(CheckBodySize, AcceptsABodyAtTheCap) {
  FakeExchange ex;
  ex.has_body_ = true;
  ex.content_length_ = 1024;
  Route r = json_route(1024);
  RequestContext ctx{ex.request_};
  ctx.route = &r;
  EXPECT_TRUE(stages::check_body_size(ctx, ex).has_value());
}

TEST(CheckBodySize, RefusesAnyBodyOnARouteThatTakesNone) {
  FakeExchange ex;
  ex.has_body_ = true;
  ex.content_length_ = 1;
  Route r = json_route(0);
  RequestContext ctx{ex.request_};
  ctx.route = &r;
  EXPECT_FALSE(stages::check_body_size(ctx, ex).has_value());
}

TEST(CheckBodySize, LeavesAChunkedBodyToTheReader) {
  FakeExchange ex;
  ex.has_body_ = true;
  Route r = json_route(10);
  RequestContext ctx{ex.request_};
  ctx.route = &r;
  EXPECT_TRUE(stages::check_body_size(ctx, ex).has_value());
}

// ---- read_body ----

class ReadBody : public ::testing::Test {
 protected:
  Result<void> read(std::string body, std::string content_type = "application/json") {
    ex.set_body(std::move(body), std::move(content_type));
    ctx.route = &route;
    return testing::run_sync(stages::read_body(ctx, ex, target, uploads));
  }

  static std::string field_error(const Result<void>& r) {
    if (r.has_value()) return "<accepted>";
    const auto b = nlohmann::json::parse(error_body(r.error(), Locale::en, TimeZone::utc()));
    if (!b.contains("errors") || !b["errors"].contains("body")) return b.dump();
    return b["errors"]["body"][0].get<std::string>();
  }

  FakeExchange ex;
  Route route = json_route(1 << 20);
  RequestContext ctx{ex.request_};
  stages::BodyTarget target;
  test::SteppedClock clock{TimePoint{} + std::chrono::hours(1)};
  Uploads uploads{UploadOptions{.budget_bytes = 1 << 20}, clock};
};

TEST_F(ReadBody, ParsesAValidBody) {
  auto r = read(R"({"text":"Привет","n":[1,2.5,null,true]})");
  ASSERT_TRUE(r.has_value());
  ASSERT_NE(ctx.json, nullptr);
  EXPECT_EQ((*ctx.json)["text"], "Привет");
  EXPECT_EQ((*ctx.json)["n"].size(), 4u);
  EXPECT_EQ(ex.read_limit_, 1u << 20);
}

TEST_F(ReadBody, TakesAnEmptyBodyAsAnEmptyObject) {
  auto r = read("", "");
  ASSERT_TRUE(r.has_value());
  ASSERT_NE(ctx.json, nullptr);
  EXPECT_TRUE(ctx.json->is_object());
  EXPECT_TRUE(ctx.json->empty());
}

TEST_F(ReadBody, RefusesMalformedJsonWith422) {
  for (const char* body : {"{", R"({"a":})", "{'a':1}", "[1,]", R"({"a":1}x)", "nul", "\x01"}) {
    target.json.reset();
    auto r = read(body);
    ASSERT_FALSE(r.has_value()) << body;
    EXPECT_EQ(r.error().status, 422) << body;
    EXPECT_EQ(field_error(r), "The request body is not valid JSON.") << body;
  }
}

TEST_F(ReadBody, RefusesDeepNestingWith422) {
  auto r = read(std::string(100000, '[') + std::string(100000, ']'));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 422);
  EXPECT_EQ(field_error(r), "The request body is nested too deeply.");
}

TEST_F(ReadBody, AcceptsSixtyFourLevelsOfNesting) {
  EXPECT_TRUE(read(std::string(64, '[') + std::string(64, ']')).has_value());
}

TEST_F(ReadBody, RefusesSixtyFiveLevelsOfNesting) {
  EXPECT_FALSE(read(std::string(65, '[') + std::string(65, ']')).has_value());
}

TEST_F(ReadBody, RefusesInvalidUtf8InAString) {
  for (const char* body : {"{\"a\":\"\xff\"}", "{\"a\":\"\xc3\"}", "{\"a\":\"\xed\xa0\x80\"}",
                           "{\"a\":\"\xc0\xaf\"}", "{\"\xfe\":1}"}) {
    target.json.reset();
    auto r = read(body);
    ASSERT_FALSE(r.has_value()) << ::testing::PrintToString(std::string(body));
    EXPECT_EQ(r.error().status, 422);
  }
}

TEST_F(ReadBody, RefusesALoneSurrogateEscape) {
  for (const char* body : {R"({"a":"\ud800"})", R"({"a":"\udc00"})", R"({"a":"\ud800\u0041"})",
                           R"({"a":"\ud800x"})"}) {
    target.json.reset();
    auto r = read(body);
    ASSERT_FALSE(r.has_value()) << body;
    EXPECT_EQ(r.error().status, 422) << body;
  }
}

TEST_F(ReadBody, AcceptsAProperSurrogatePair) {
  auto r = read(R"({"a":"\ud83d\ude00"})");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*ctx.json)["a"], "\xF0\x9F\x98\x80");
}

TEST_F(ReadBody, RefusesANonJsonContentTypeWith415) {
  auto r = read(R"({"a":1})", "text/plain");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 415);
}

TEST_F(ReadBody, AcceptsJsonContentTypesWithParameters) {
  EXPECT_TRUE(read(R"({"a":1})", "application/json; charset=utf-8").has_value());
}

TEST_F(ReadBody, AnswersTheReadersVerdictOnSize) {
  ex.read_status_ = BodyStatus::too_large;
  auto r = read("{}");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 413);
}

TEST_F(ReadBody, AnswersAFailedReadWith400) {
  ex.read_status_ = BodyStatus::failed;
  auto r = read("{}");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 400);
}

TEST_F(ReadBody, LeavesANonJsonRouteUnparsed) {
  route.json_body = false;
  auto r = read("not json at all", "application/octet-stream");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(ctx.json, nullptr);
}

TEST_F(ReadBody, GivesAnUploadRouteTheFormParts) {
  route.multipart_body = true;
  auto r = read("--b\r\nContent-Disposition: form-data; name=\"top\"\r\n\r\n5\r\n--b--\r\n",
                "Multipart/Form-Data; boundary=b");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(ctx.json, nullptr);
  ASSERT_NE(ctx.form, nullptr);
  ASSERT_NE(ctx.form->first("top"), nullptr);
  EXPECT_EQ(ctx.form->first("top")->data, "5");
}

TEST_F(ReadBody, RefusesABrokenFormWithTheParsersVerdict) {
  route.multipart_body = true;
  route.multipart.max_parts = 1;
  EXPECT_EQ(field_error(read("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--b", "multipart/form-data; boundary=b")),
            "The request body is not valid multipart/form-data.");
  auto two = read("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; "
                  "name=\"y\"\r\n\r\n2\r\n--b--\r\n",
                  "multipart/form-data; boundary=b");
  ASSERT_FALSE(two.has_value());
  EXPECT_EQ(two.error().status, 413);
  EXPECT_EQ(ctx.form, nullptr);
}

TEST_F(ReadBody, RefusesAnUploadThatDoesNotFitTheBudgetWith503) {
  route.multipart_body = true;
  auto held = uploads.budget.take((1 << 20) - 10);
  ASSERT_TRUE(held.has_value());
  auto r = read("--b\r\nContent-Disposition: form-data; name=\"top\"\r\n\r\n5\r\n--b--\r\n", "multipart/form-data; boundary=b");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 503);
  EXPECT_EQ(ctx.form, nullptr);
  // What it could not take it did not keep.
  EXPECT_EQ(uploads.budget.in_use(), (1u << 20) - 10);
}

TEST_F(ReadBody, AnUploadHoldsWhatArrivedUntilTheRequestEnds) {
  route.multipart_body = true;
  const std::string body = "--b\r\nContent-Disposition: form-data; name=\"top\"\r\n\r\n5\r\n--b--\r\n";
  ASSERT_TRUE(read(body, "multipart/form-data; boundary=b").has_value());
  EXPECT_EQ(uploads.budget.in_use(), body.size());
  target = {};
  EXPECT_EQ(uploads.budget.in_use(), 0u);
}

TEST(UploadBudget, LendsUntilFullAndTakesBackWhenALeaseEnds) {
  UploadBudget budget(100);
  auto a = budget.take(60);
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(budget.take(41).has_value());
  {
    auto b = budget.take(40);
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(budget.in_use(), 100u);
  }
  EXPECT_EQ(budget.in_use(), 60u);
  EXPECT_FALSE(budget.take(std::size_t(-1)).has_value());
  a.reset();
  EXPECT_EQ(budget.in_use(), 0u);
}

TEST_F(ReadBody, KeepsJsonOnAnUploadRoute) {
  route.multipart_body = true;
  ASSERT_TRUE(read(R"({"a":1})").has_value());
  ASSERT_NE(ctx.json, nullptr);
  EXPECT_EQ(ctx.form, nullptr);
}

TEST_F(ReadBody, ReadsJsonOnAnUploadRouteWithinTheJsonCap) {
  route.multipart_body = true;
  route.json_body_limit = 4096;
  ASSERT_TRUE(read(R"({"a":1})").has_value());
  EXPECT_EQ(ex.read_limit_, 4096u);
}

TEST_F(ReadBody, RefusesAFormOnARouteWithoutUploads) {
  auto refused = read("--b--\r\n", "multipart/form-data; boundary=b");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().status, 415);
}

// ---- authorize ----

TEST(Authorize, LetsAKeyWithTheRoutesScopeThrough) {
  FakeRequest req;
  RequestContext ctx{req};
  Route r = json_route();
  r.access = Access::scope;
  r.scope = auth::Scope::orders_write;
  ctx.route = &r;
  auto p = std::make_shared<auth::Principal>();
  p->scopes.add(auth::Scope::orders_write);
  ctx.principal = p;
  EXPECT_TRUE(stages::authorize(ctx).has_value());
}

TEST(Authorize, Refuses403NamingTheMissingScope) {
  FakeRequest req;
  RequestContext ctx{req};
  Route r = json_route();
  r.access = Access::scope;
  r.scope = auth::Scope::reseller_read;
  ctx.route = &r;
  auto p = std::make_shared<auth::Principal>();
  p->scopes.add_wildcard();
  ctx.principal = p;
  auto result = stages::authorize(ctx);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().status, 403);
  EXPECT_EQ(nlohmann::json::parse(stage_error_body(result.error()))["message"],
            "This API key lacks the reseller.read permission.");
}

TEST(Authorize, LetsAnyKeyThroughARouteNeedingNoPermission) {
  FakeRequest req;
  RequestContext ctx{req};
  Route r = json_route();
  r.access = Access::any_key;
  ctx.route = &r;
  ctx.principal = std::make_shared<auth::Principal>();
  EXPECT_TRUE(stages::authorize(ctx).has_value());
}

}  // namespace
}  // namespace mediagen::http
