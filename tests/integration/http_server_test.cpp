// The public pipeline and HTTP server of an instance in this process (TestServer), with real
// pools, driven over a real TCP socket by Beast's synchronous client.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>
#include <atomic>
#include <thread>
#include <vector>

#include "mediagen/account/users.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/router.hpp"
#include "support.hpp"
#include "test_server.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using json = nlohmann::json;
using namespace std::chrono_literals;

using Request = bhttp::request<bhttp::string_body>;
using Reply = bhttp::response<bhttp::string_body>;

// One client connection: synchronous writes and reads.
class Client {
 public:
  explicit Client(std::uint16_t port) : socket_(ioc_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }

  Reply send(Request req) {
    req.set(bhttp::field::host, "127.0.0.1");
    bhttp::write(socket_, req);
    return read();
  }

  // Sends only the header (for Expect: 100-continue) and reads the answer.
  Reply send_header_only(Request req) {
    req.set(bhttp::field::host, "127.0.0.1");
    bhttp::request_serializer<bhttp::string_body> sr(req);
    bhttp::write_header(socket_, sr);
    return read();
  }

  Reply send_raw(std::string_view bytes) {
    asio::write(socket_, asio::buffer(bytes));
    return read();
  }

  Reply read() {
    Reply res;
    bhttp::read(socket_, buffer_, res);
    return res;
  }

  // A HEAD response declares a length but carries no body.
  Reply send_head(Request req) {
    req.set(bhttp::field::host, "127.0.0.1");
    bhttp::write(socket_, req);
    bhttp::response_parser<bhttp::string_body> parser;
    parser.skip(true);
    bhttp::read(socket_, buffer_, parser);
    return parser.release();
  }

  // True when the server closed the connection (end of stream or reset) within a few seconds.
  bool closed_by_server() {
    if (buffer_.size() > 0) return false;
    pollfd pfd{socket_.native_handle(), POLLIN, 0};
    if (::poll(&pfd, 1, 5000) <= 0) return false;
    char c;
    const auto n = ::recv(socket_.native_handle(), &c, 1, MSG_PEEK);
    return n <= 0;
  }

 private:
  asio::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

Request post(std::string target, std::string body, std::string content_type = "application/json") {
  Request req{bhttp::verb::post, target, 11};
  if (!content_type.empty()) req.set(bhttp::field::content_type, content_type);
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

Request get(std::string target) { return Request{bhttp::verb::get, target, 11}; }

std::string header(const Reply& r, std::string_view name) {
  auto it = r.find(name);
  return it == r.end() ? std::string() : std::string(it->value());
}

http::Route json_route(std::string pattern, std::size_t limit) {
  return {
      .method = http::Method::post,
      .pattern = std::move(pattern),
      .access = http::Access::open,
      .body_limit = limit,
      .json_body = true,
      .handler = [](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
        co_return http::Reply{.data_json = ctx.json->dump()};
      },
  };
}

http::Route key_route(std::string pattern, http::Access access, auth::Scope scope) {
  return {
      .method = http::Method::get,
      .pattern = std::move(pattern),
      .access = access,
      .scope = scope,
      .handler = [](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
        co_return http::Reply{.data_json = "{\"key_id\":" + std::to_string(ctx.principal->key_id.value) + "}"};
      },
  };
}

// The system clock, unless a test freezes it.
class FreezableClock final : public Clock {
 public:
  TimePoint now() const override {
    const auto frozen = frozen_.load();
    return frozen != 0 ? TimePoint{TimePoint::duration{frozen}} : std::chrono::system_clock::now();
  }
  void freeze() { frozen_ = std::chrono::system_clock::now().time_since_epoch().count(); }

 private:
  std::atomic<TimePoint::rep> frozen_{0};
};

class HttpServerTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    auto config = TestServer::config({db_url, redis_url, prefix});
    config.ban_ladder_seconds = {60, 120};
    config.ban_threshold = 5;
    config.docs_url = "https://docs.example/api";
    config.developers_url = "https://developers.example";
    config.io_threads = io_thread_count();
    server = std::make_unique<TestServer>(config, clock, counters, [](http::Router& router, db::BlockingPool&, db::AsyncPg&) {
      router.add_api(json_route("/echo", 1024));
      router.add_api(json_route("/echo/large", 1 << 20));
      router.add_api(key_route("/whoami", http::Access::scope, auth::Scope::profile_read));
      router.add_api(key_route("/orders-only", http::Access::scope, auth::Scope::orders_write));
      router.add_api(key_route("/any-key", http::Access::any_key, auth::Scope::profile_read));
      router.add_api(key_route("/reseller-only", http::Access::scope, auth::Scope::reseller_read));
      // A route that exists for no account (as the wallet's while switched off).
      http::Route hidden = key_route("/hidden", http::Access::scope, auth::Scope::reseller_read);
      hidden.exists_for = [](http::RequestContext&) -> asio::awaitable<bool> { co_return false; };
      router.add_api(std::move(hidden));
    });
    port = server->port();
  }

  void TearDown() override {
    if (server) {
      server->drain();
      EXPECT_EQ(server->connections(), 0u) << "a connection outlived the shutdown";
    }
    server.reset();
    MigratedTest::TearDown();
  }

  Reply post_echo(std::string body, std::string target = "/api/echo") {
    Client c(port);
    return c.send(post(std::move(target), std::move(body)));
  }

  auth::CreatedKey create_key(const char* preset_name, Locale locale = Locale::en, cache::RateWindows rates = {}) {
    db::Db db(db_url, &counters);
    const auto user = account::create_user(db, {"owner-" + random_hex(4) + "@example.com", "", locale, {}});
    auth::NewKey request;
    request.user = user.id;
    request.scopes = *auth::preset(preset_name);
    request.limits.requests = rates;
    return auth::create_key(db, request);
  }

  Request with_key(Request req, const auth::CreatedKey& key) {
    req.set("X-API-KEY", key.plaintext);
    return req;
  }

  static const std::string& invalid_json_body() {
    static const std::string body =
        R"({"message":"The request body is not valid JSON.","errors":{"body":["The request body is not valid JSON."]}})";
    return body;
  }

  FreezableClock clock;
  std::unique_ptr<TestServer> server;  // after the clock it reads
  std::uint16_t port = 0;

  virtual int io_thread_count() const { return 1; }

  // 16 clients, 10 keep-alive requests each, authenticated and JSON alternately.
  void serve_many_clients() {
    const auto key = create_key("read_only");
    std::atomic<int> ok{0}, bad{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < 16; ++t) {
      clients.emplace_back([&, t] {
        try {
          Client c(port);
          for (int i = 0; i < 10; ++i) {
            const Reply r = (i % 2 == 0) ? c.send(with_key(get("/api/whoami"), key))
                                         : c.send(post("/api/echo", "{\"t\":" + std::to_string(t) + "}"));
            (r.result_int() == 200 ? ok : bad).fetch_add(1);
          }
        } catch (const std::exception&) {
          bad.fetch_add(100);
        }
      });
    }
    for (auto& th : clients) th.join();
    EXPECT_EQ(ok.load(), 160);
    EXPECT_EQ(bad.load(), 0);
  }
};

// The same server on two I/O threads, where each connection runs on a strand of its own.
class HttpServerOnTwoThreadsTest : public HttpServerTest {
 protected:
  int io_thread_count() const override { return 2; }
};

// ---- JSON bodies ----

TEST_F(HttpServerTest, EchoesAValidJsonBody) {
  const Reply r = post_echo(R"({"text":"Привет","n":[1,2.5,null,true],"o":{}})");
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_EQ(header(r, "Content-Type"), "application/json; charset=utf-8");
  EXPECT_EQ(header(r, "X-Timezone"), "UTC");
  const json b = json::parse(r.body());
  EXPECT_EQ(b["success"], true);
  EXPECT_EQ(b["message"], "OK.");
  EXPECT_EQ(b["data"], json::parse(R"({"text":"Привет","n":[1,2.5,null,true],"o":{}})"));
}

TEST_F(HttpServerTest, Answers422ForMalformedJsonWithoutASuccessField) {
  for (const char* body : {R"({"a":)", "{'a':1}", "[1,]", "nul", R"({"a":1} trailing)"}) {
    const Reply r = post_echo(body);
    EXPECT_EQ(r.result_int(), 422) << body;
    EXPECT_EQ(r.body(), invalid_json_body()) << body;
  }
}

TEST_F(HttpServerTest, Answers422ForAHundredThousandLevelsOfNestingAndKeepsServing) {
  const Reply deep = post_echo(std::string(100000, '[') + std::string(100000, ']'), "/api/echo/large");
  EXPECT_EQ(deep.result_int(), 422);
  const json b = json::parse(deep.body());
  EXPECT_FALSE(b.contains("success"));
  EXPECT_EQ(b["errors"]["body"][0], "The request body is nested too deeply.");
  const Reply objects = post_echo(std::string(100000, '{'), "/api/echo/large");
  EXPECT_EQ(objects.result_int(), 422);
  EXPECT_EQ(post_echo(R"({"still":"alive"})").result_int(), 200);
}

TEST_F(HttpServerTest, Answers422ForDeepNestingWithinTheSmallLimit) {
  const Reply r = post_echo(std::string(500, '[') + std::string(500, ']'));
  EXPECT_EQ(r.result_int(), 422);
}

TEST_F(HttpServerTest, Answers422ForInvalidUtf8InAString) {
  for (const char* body : {"{\"a\":\"\xff\"}", "{\"a\":\"\xc3(\"}", "{\"a\":\"\xed\xa0\x80\"}", "{\"\xc0\xaf\":1}"}) {
    const Reply r = post_echo(body);
    EXPECT_EQ(r.result_int(), 422) << ::testing::PrintToString(std::string(body));
    EXPECT_EQ(r.body(), invalid_json_body());
  }
}

TEST_F(HttpServerTest, Answers422ForALoneSurrogate) {
  for (const char* body : {R"({"a":"\ud800"})", R"({"a":"\udfff"})", R"({"a":"x\ud800y"})"}) {
    const Reply r = post_echo(body);
    EXPECT_EQ(r.result_int(), 422) << body;
    EXPECT_EQ(r.body(), invalid_json_body()) << body;
  }
}

TEST_F(HttpServerTest, Answers422InRussianWhenAsked) {
  Client c(port);
  Request req = post("/api/echo", "{");
  req.set("X-Locale", "ru-RU");
  const Reply r = c.send(req);
  EXPECT_EQ(r.result_int(), 422);
  EXPECT_EQ(json::parse(r.body())["message"], "Тело запроса не является корректным JSON.");
}

TEST_F(HttpServerTest, TakesAnEmptyBodyAsAnEmptyObject) {
  const Reply r = post_echo("");
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_EQ(json::parse(r.body())["data"], json::object());
}

TEST_F(HttpServerTest, Answers415ForANonJsonContentType) {
  Client c(port);
  const Reply r = c.send(post("/api/echo", R"({"a":1})", "text/plain"));
  EXPECT_EQ(r.result_int(), 415);
}

// ---- body limits ----

TEST_F(HttpServerTest, AcceptsABodyOfExactlyTheLimit) {
  const std::string body = R"({"a":")" + std::string(1024 - 8, 'x') + R"("})";
  ASSERT_EQ(body.size(), 1024u);
  EXPECT_EQ(post_echo(body).result_int(), 200);
}

TEST_F(HttpServerTest, Answers413ForABodyOverTheLimitAndClosesTheConnection) {
  const std::string body = R"({"a":")" + std::string(1024 - 7, 'x') + R"("})";
  ASSERT_EQ(body.size(), 1025u);
  Client c(port);
  const Reply r = c.send(post("/api/echo", body));
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_EQ(r.body(), R"({"success":false,"message":"Request body is too large."})");
  EXPECT_FALSE(r.keep_alive());
  EXPECT_TRUE(c.closed_by_server());
}

TEST_F(HttpServerTest, Answers413ForAChunkedBodyOverTheLimit) {
  Client c(port);
  Request req{bhttp::verb::post, "/api/echo", 11};
  req.set(bhttp::field::content_type, "application/json");
  req.body() = R"({"a":")" + std::string(3000, 'x') + R"("})";
  req.chunked(true);
  const Reply r = c.send(req);
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_TRUE(c.closed_by_server());
}

TEST_F(HttpServerTest, Answers413BeforeTheBodyIsSentWhenContinueIsExpected) {
  Client c(port);
  Request req = post("/api/echo", std::string(5000, ' '));
  req.set(bhttp::field::expect, "100-continue");
  const Reply r = c.send_header_only(req);
  EXPECT_EQ(r.result_int(), 413);
}

TEST_F(HttpServerTest, AnswersContinueThenEchoesWhenTheBodyFits) {
  Client c(port);
  Request req = post("/api/echo", R"({"ok":true})");
  req.set(bhttp::field::expect, "100-continue");
  // Header, then "100 Continue", then the body.
  const Reply interim = c.send_header_only(req);
  EXPECT_EQ(interim.result_int(), 100);
  const Reply r = c.send_raw(R"({"ok":true})");
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_EQ(json::parse(r.body())["data"]["ok"], true);
}

// ---- connections ----

TEST_F(HttpServerTest, KeepsAConnectionAliveAcrossRequests) {
  Client c(port);
  for (int i = 0; i < 3; ++i) {
    const Reply r = c.send(post("/api/echo", "{\"i\":" + std::to_string(i) + "}"));
    EXPECT_EQ(r.result_int(), 200);
    EXPECT_TRUE(r.keep_alive());
    EXPECT_EQ(json::parse(r.body())["data"]["i"], i);
  }
}

TEST_F(HttpServerTest, Answers400ForAnUnparseableRequestAndCloses) {
  Client c(port);
  const Reply r = c.send_raw("BR@KEN / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.result_int(), 400);
  EXPECT_TRUE(c.closed_by_server());
}

// ---- routing and bans ----

TEST_F(HttpServerTest, Answers405WithTheAllowHeader) {
  Client c(port);
  const Reply r = c.send(get("/api/echo"));
  EXPECT_EQ(r.result_int(), 405);
  EXPECT_EQ(header(r, "Allow"), "POST");
  EXPECT_EQ(r.body(), R"({"success":false,"message":"Method not allowed."})");
}

TEST_F(HttpServerTest, Answers404ForAnUnknownPathAndCountsAMiss) {
  Client c(port);
  const Reply r = c.send(get("/api/nope?x=1"));
  EXPECT_EQ(r.result_int(), 404);
  const json b = json::parse(r.body());
  EXPECT_EQ(b["reason"], "endpoint_not_found");
  EXPECT_EQ(b["error_code"], "endpoint_not_found");
  EXPECT_EQ(b["method"], "GET");
  EXPECT_EQ(b["path"], "/api/nope");
  EXPECT_EQ(b["docs"], "https://docs.example/api");
  EXPECT_NE(b["ban_warning"].get<std::string>().find("4 of 5"), std::string::npos) << b["ban_warning"];
  cache::Redis redis({.url = redis_url});
  EXPECT_EQ(redis.command({"GET", prefix + "ban:misses:127.0.0.1"}).str, "1");
}

TEST_F(HttpServerTest, AnswersARouteThatDoesNotExistForTheAccountAsAnUnknownPathWithoutCountingIt) {
  const auto key = create_key("read_only");  // without the route's scope: still a 404, not a 403
  cache::Redis redis({.url = redis_url});
  Client c(port);
  const json unknown = json::parse(c.send(with_key(get("/api/nope"), key)).body());
  for (int i = 0; i < 8; ++i) {  // beyond the threshold of 5
    const Reply r = c.send(with_key(get("/api/hidden?page=1"), key));
    EXPECT_EQ(r.result_int(), 404);
    json b = json::parse(r.body());
    EXPECT_EQ(b["path"], "/api/hidden");
    b["path"] = unknown["path"];
    EXPECT_EQ(b, unknown) << "the same body as an unknown path, the misses left included";
  }
  EXPECT_EQ(redis.command({"GET", prefix + "ban:misses:127.0.0.1"}).str, "1");
  EXPECT_EQ(c.send(with_key(get("/api/whoami"), key)).result_int(), 200) << "not banned";
  // Without a key, the key check answers first, as on any real route.
  EXPECT_EQ(c.send(get("/api/hidden")).result_int(), 401);
}

TEST_F(HttpServerTest, BansAfterTheThresholdAndRefusesEveryPathWhileBanned) {
  for (int i = 0; i < 5; ++i) {
    Client c(port);
    EXPECT_EQ(c.send(get("/api/missing/" + std::to_string(i))).result_int(), 404);
  }
  Client c(port);
  const Reply r = c.send(post("/api/echo", "{}"));
  EXPECT_EQ(r.result_int(), 429);
  const json b = json::parse(r.body());
  EXPECT_EQ(b["reason"], "ip_banned");
  EXPECT_EQ(b["ban_step"], 1);
  EXPECT_EQ(b["ban_ladder_seconds"], json::array({60, 120}));
  const int retry_after = std::stoi(header(r, "Retry-After"));
  EXPECT_GE(retry_after, 58);
  EXPECT_LE(retry_after, 60);
  EXPECT_EQ(b["retry_after"], retry_after);
}

TEST_F(HttpServerTest, RendersTheBanTimeInTheRequestedZone) {
  server->bans().put("127.0.0.1", cache::Ban{clock.now() + 90s, 2});
  Client c(port);
  Request req = get("/api/whoami");
  req.set("X-Timezone", "Asia/Kathmandu");
  const Reply r = c.send(req);
  EXPECT_EQ(r.result_int(), 429);
  EXPECT_EQ(header(r, "X-Timezone"), "Asia/Kathmandu");
  EXPECT_NE(json::parse(r.body())["banned_until"].get<std::string>().find("+05:45"), std::string::npos);
}

TEST_F(HttpServerTest, FallsBackToUtcForABareOffset) {
  Client c(port);
  Request req = post("/api/echo", "{}");
  req.set("X-Timezone", "+03:00");
  EXPECT_EQ(header(c.send(req), "X-Timezone"), "UTC");
}

// ---- keys ----

TEST_F(HttpServerTest, Answers401WithoutAKey) {
  Client c(port);
  const Reply r = c.send(get("/api/whoami"));
  EXPECT_EQ(r.result_int(), 401);
  EXPECT_EQ(r.body(),
            R"({"success":false,"message":"API key is missing: send it in the X-API-KEY header.","data":null})");
  EXPECT_TRUE(header(r, "Retry-After").empty());
}

TEST_F(HttpServerTest, Answers401ForAnUnknownKey) {
  Client c(port);
  Request req = get("/api/whoami");
  req.set("X-API-KEY", "mg_" + std::string(43, 'A'));
  const Reply r = c.send(req);
  EXPECT_EQ(r.result_int(), 401);
  EXPECT_EQ(json::parse(r.body())["message"], "API key is invalid.");
}

TEST_F(HttpServerTest, LooksAKeyUpOnceAndThenAnswersFromTheCache) {
  const auto key = create_key("read_only");
  for (int i = 0; i < 3; ++i) {
    Client c(port);
    Request req = get("/api/whoami");
    req.set("X-API-KEY", key.plaintext);
    const Reply r = c.send(req);
    ASSERT_EQ(r.result_int(), 200) << r.body();
    EXPECT_EQ(json::parse(r.body())["data"]["key_id"], key.key.key_id.value);
  }
  EXPECT_EQ(counters.key_cache_misses.load(), 1u);
  EXPECT_EQ(counters.key_cache_hits.load(), 2u);
}

TEST_F(HttpServerTest, Answers403NamingTheMissingPermission) {
  const auto key = create_key("read_only");
  Client c(port);
  Request req = get("/api/orders-only");
  req.set("X-API-KEY", key.plaintext);
  const Reply r = c.send(req);
  EXPECT_EQ(r.result_int(), 403);
  EXPECT_EQ(r.body(), R"({"success":false,"message":"This API key lacks the orders.write permission.","data":null})");
}

TEST_F(HttpServerTest, LetsAnyActiveKeyThroughARouteWithoutPermission) {
  db::Db db(db_url, &counters);
  const auto user = account::create_user(db, {"noscope@example.com", "", Locale::en, {}});
  const auto key = auth::create_key(db, {.user = user.id});
  Client c(port);
  Request req = get("/api/any-key");
  req.set("X-API-KEY", key.plaintext);
  EXPECT_EQ(c.send(req).result_int(), 200);
  Request scoped = get("/api/whoami");
  scoped.set("X-API-KEY", key.plaintext);
  EXPECT_EQ(c.send(scoped).result_int(), 403);
}

TEST_F(HttpServerTest, RefusesTheWildcardOnAResellerRouteAndAdmitsTheNamedScope) {
  db::Db db(db_url, &counters);
  const auto user = account::create_user(db, {"reseller@example.com", "", Locale::en, {}});
  auth::NewKey wildcard{.user = user.id};
  wildcard.scopes.add_wildcard();
  const auto star = auth::create_key(db, wildcard);
  auth::NewKey named{.user = user.id};
  named.scopes.add(auth::Scope::reseller_read);
  const auto reseller = auth::create_key(db, named);

  Client c(port);
  const Reply refused = c.send(with_key(get("/api/reseller-only"), star));
  EXPECT_EQ(refused.result_int(), 403);
  EXPECT_EQ(refused.body(), R"({"success":false,"message":"This API key lacks the reseller.read permission.","data":null})");
  EXPECT_EQ(c.send(with_key(get("/api/whoami"), star)).result_int(), 200) << "the wildcard passes other scopes";
  EXPECT_EQ(c.send(with_key(get("/api/reseller-only"), reseller)).result_int(), 200);
}

TEST_F(HttpServerTest, ClosesConnectionsOverTheCapAndServesTheRest) {
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 64; ++i) held.push_back(std::make_unique<Client>(port));
  for (int i = 0; i < 200 && server->connections() < 64; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(server->connections(), 64u);
  // One more is accepted and closed at once: its request gets no answer.
  Client extra(port);
  EXPECT_ANY_THROW(extra.send(get("/api/echo")));
  EXPECT_EQ(held.front()->send(post("/api/echo", "{}")).result_int(), 200) << "connections within the cap still work";
  held.clear();
  for (int i = 0; i < 200 && server->connections() > 0; ++i) std::this_thread::sleep_for(10ms);
  Client later(port);
  EXPECT_EQ(later.send(post("/api/echo", "{}")).result_int(), 200) << "the cap frees up as connections close";
}

TEST_F(HttpServerTest, Answers401ForADisabledKey) {
  const auto key = create_key("full");
  db::Db db(db_url, &counters);
  auth::disable_key(db, key.key.key_id);
  Client c(port);
  Request req = get("/api/whoami");
  req.set("X-API-KEY", key.plaintext);
  const Reply r = c.send(req);
  EXPECT_EQ(r.result_int(), 401);
  EXPECT_EQ(json::parse(r.body())["message"], "API key is invalid.");
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrder) {
  Client c(port);
  std::string both;
  for (int i = 0; i < 2; ++i) {
    const std::string body = "{\"n\":" + std::to_string(i) + "}";
    both += "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  const Reply first = c.send_raw(both);
  const Reply second = c.read();
  EXPECT_EQ(json::parse(first.body())["data"]["n"], 0);
  EXPECT_EQ(json::parse(second.body())["data"]["n"], 1);
}

TEST_F(HttpServerTest, EchoesAChunkedBodyWithinTheLimit) {
  Client c(port);
  Request req{bhttp::verb::post, "/api/echo", 11};
  req.set(bhttp::field::content_type, "application/json");
  req.body() = R"({"chunked":true})";
  req.chunked(true);
  const Reply r = c.send(req);
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_EQ(json::parse(r.body())["data"]["chunked"], true);
}

TEST_F(HttpServerTest, AnswersHeadLikeGetWithoutABody) {
  const auto key = create_key("read_only");
  Client c(port);
  const Reply get_reply = c.send(with_key(get("/api/whoami"), key));
  const Reply head_reply = c.send_head(with_key(Request{bhttp::verb::head, "/api/whoami", 11}, key));
  EXPECT_EQ(head_reply.result_int(), 200);
  EXPECT_TRUE(head_reply.body().empty());
  EXPECT_EQ(header(head_reply, "Content-Length"), std::to_string(get_reply.body().size()));
  // The connection is still usable after the bodiless answer.
  EXPECT_EQ(c.send(with_key(get("/api/whoami"), key)).result_int(), 200);
}

TEST_F(HttpServerTest, FollowsTheKeyOwnersLanguageWithoutXLocale) {
  const auto key = create_key("read_only", Locale::ru);
  Client c(port);
  const Reply r = c.send(with_key(get("/api/orders-only"), key));
  EXPECT_EQ(r.result_int(), 403);
  EXPECT_EQ(json::parse(r.body())["message"], "У этого API-ключа нет разрешения orders.write.");
  Request en = with_key(get("/api/orders-only"), key);
  en.set("X-Locale", "en");
  EXPECT_EQ(json::parse(c.send(en).body())["message"], "This API key lacks the orders.write permission.");
}

TEST_F(HttpServerTest, Answers429WhenTheKeysRequestWindowIsSpent) {
  const auto key = create_key("read_only", Locale::en, cache::RateWindows{.per_minute = 2});
  clock.freeze();  // all three requests in one window, whatever the wall clock does
  Client c(port);
  const Reply first = c.send(with_key(get("/api/whoami"), key));
  ASSERT_EQ(first.result_int(), 200);
  EXPECT_EQ(header(first, "X-RateLimit-Limit"), "2");
  EXPECT_EQ(header(first, "X-RateLimit-Remaining"), "1");
  EXPECT_EQ(c.send(with_key(get("/api/whoami"), key)).result_int(), 200);
  const Reply refused = c.send(with_key(get("/api/whoami"), key));
  // A window boundary may fall between the requests; then the third one opens a new window.
  EXPECT_EQ(refused.result_int(), 429);
  const json b = json::parse(refused.body());
  EXPECT_EQ(b["reason"], "rate_limit_exceeded");
  EXPECT_EQ(b["error_code"], "rate_limit_exceeded");
  EXPECT_EQ(header(refused, "X-RateLimit-Remaining"), "0");
  EXPECT_FALSE(header(refused, "Retry-After").empty());
  EXPECT_EQ(std::to_string(b["retry_after"].get<int>()), header(refused, "Retry-After"));
}

TEST_F(HttpServerTest, ServesManyClientsAtOnce) { serve_many_clients(); }

TEST_F(HttpServerOnTwoThreadsTest, ServesManyClientsAtOnce) { serve_many_clients(); }

TEST_F(HttpServerOnTwoThreadsTest, AnswersEveryErrorShapeOnAnyThread) {
  Client c(port);
  EXPECT_EQ(c.send(post("/api/echo", "{")).result_int(), 422);
  EXPECT_EQ(c.send(get("/api/whoami")).result_int(), 401);
  EXPECT_EQ(c.send(get("/api/echo")).result_int(), 405);
  EXPECT_EQ(c.send(get("/api/nope")).result_int(), 404);
  EXPECT_EQ(c.send(post("/api/echo", R"({"ok":1})")).result_int(), 200);
}

// ---- metrics ----

TEST_F(HttpServerTest, CountsRequestsByRouteAndStatus) {
  post_echo("{}");
  post_echo("{");
  {
    Client c(port);
    c.send(get("/api/unknown"));
  }
  const std::string text = server->metrics().render();
  EXPECT_NE(text.find(R"(mediagen_http_requests_total{route="POST /api/echo",status="200"} 1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(mediagen_http_requests_total{route="POST /api/echo",status="422"} 1)"), std::string::npos);
  EXPECT_NE(text.find(R"(mediagen_http_requests_total{route="none",status="404"} 1)"), std::string::npos);
}

}  // namespace
}  // namespace mediagen::test
