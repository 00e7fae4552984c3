// POST /broadcasting/auth through the real pipeline and HTTP server, with real keys, users and
// orders in PostgreSQL: the signature pusher-js reads, both body encodings, scopes, ownership,
// the 422s of malformed fields, and the grant recorded only when access is given.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "mediagen/account/users.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/realtime/auth_routes.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/realtime/channel_signer.hpp"
#include "support.hpp"
#include "test_client.hpp"
#include "test_server.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using json = nlohmann::json;
using realtime::Grant;

using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;

const std::string kAppKey = "test-app-key";
const std::string kSecret = "test-pusher-secret";
const std::string kSocket = "1234.5678";
const std::string kMissingOrder = "0f8fad5b-d9cb-469f-a165-70867728950e";
const std::string kFormType = "application/x-www-form-urlencoded";


// Every byte but the unreserved ones percent-encoded, as a browser's form encoder would.
std::string form_encode(std::string_view text, bool space_as_plus = false) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += ch;
    } else if (c == ' ' && space_as_plus) {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string form(const std::string& socket_id, const std::string& channel) {
  return "socket_id=" + form_encode(socket_id) + "&channel_name=" + form_encode(channel);
}

// A value for a failure message, whatever bytes it holds.
std::string printable(const std::string& s) {
  return json(s).dump(-1, ' ', true, json::error_handler_t::replace);
}

class RealtimeAuthTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    alice = account::create_user(*db, {.email = "alice-" + random_hex(4) + "@example.com"}).id;
    bob = account::create_user(*db, {.email = "bob-" + random_hex(4) + "@example.com"}).id;
    server = std::make_unique<TestServer>(
        TestServerOptions{db_url, redis_url, prefix}, clock, counters,
        [this](http::Router& router, db::BlockingPool& pool, db::AsyncPg&) {
          realtime::register_auth_routes(router, pool,
                                         {.signer = signer, .on_granted = [this](db::Resources&, const Grant& g) {
                                            std::lock_guard lock(grants_mutex);
                                            grants.push_back(g);
                                            return !grants_unreachable;
                                          }});
        });
    port = server->port();
  }

  void TearDown() override {
    server.reset();
    db.reset();
    MigratedTest::TearDown();
  }

  auth::CreatedKey key_of(UserId user, auth::ScopeSet scopes, std::optional<TimePoint> expires_at = std::nullopt) {
    return auth::create_key(*db, {.user = user, .scopes = scopes, .expires_at = expires_at});
  }
  static auth::ScopeSet scopes(std::initializer_list<auth::Scope> list) {
    auth::ScopeSet s;
    for (auto scope : list) s.add(scope);
    return s;
  }
  static auth::ScopeSet wildcard() {
    auth::ScopeSet s;
    s.add_wildcard();
    return s;
  }

  std::string order_of(UserId user) {
    return query_value(db_url, "INSERT INTO orders (user_id, task_type, service_key, asset_id) VALUES (" +
                                   std::to_string(user.value) +
                                   ", 'tts', 'provider_a', (SELECT id FROM currency_assets WHERE is_default))"
                                   " RETURNING id::text");
  }

  Response post(const std::optional<std::string>& key, const std::string& body,
                const std::optional<std::string>& content_type = kFormType) {
    Request req{bhttp::verb::post, "/api/broadcasting/auth", 11};
    if (key) req.set("X-API-KEY", *key);
    if (content_type) req.set(bhttp::field::content_type, *content_type);
    req.body() = body;
    req.prepare_payload();
    test::TestClient c(port);
    return c.send(std::move(req));
  }
  Response post_form(const auth::CreatedKey& key, const std::string& socket_id, const std::string& channel) {
    return post(key.plaintext, form(socket_id, channel));
  }

  // A 200 whose body is exactly the signature of (socket_id, channel) and nothing else.
  void expect_signed(const Response& r, const std::string& socket_id, const std::string& channel) {
    ASSERT_EQ(r.result_int(), 200) << r.body();
    EXPECT_EQ(r.body(), R"({"auth":")" + signer.sign(socket_id, channel) + R"("})");
    const json body = json::parse(r.body());
    EXPECT_EQ(body.size(), 1u);
    EXPECT_TRUE(signer.verify(socket_id, channel, body["auth"].get<std::string>()));
    EXPECT_EQ(body["auth"].get<std::string>().rfind(kAppKey + ":", 0), 0u);
    EXPECT_NE(header(r, "Content-Type").find("application/json"), std::string::npos);
  }

  // A 422 in the validation shape naming exactly `fields`.
  void expect_invalid(const Response& r, const std::vector<std::string>& fields) {
    ASSERT_EQ(r.result_int(), 422) << r.body();
    const json body = json::parse(r.body());
    EXPECT_FALSE(body.contains("success")) << r.body();
    EXPECT_TRUE(body["message"].is_string());
    ASSERT_TRUE(body["errors"].is_object()) << r.body();
    EXPECT_EQ(body["errors"].size(), fields.size()) << r.body();
    for (const auto& f : fields) EXPECT_TRUE(body["errors"].contains(f)) << f << " in " << r.body();
  }

  // The 403 of section 5: {success:false, message, data:null}.
  void expect_forbidden(const Response& r) {
    ASSERT_EQ(r.result_int(), 403) << r.body();
    const json body = json::parse(r.body());
    EXPECT_EQ(body["success"], false);
    EXPECT_TRUE(body["message"].is_string());
    EXPECT_TRUE(body.contains("data") && body["data"].is_null()) << r.body();
    EXPECT_FALSE(body.contains("auth"));
  }

  std::vector<Grant> granted() {
    std::lock_guard lock(grants_mutex);
    return grants;
  }

  SystemClock clock;
  realtime::ChannelSigner signer{kAppKey, kSecret};
  std::optional<db::Db> db;
  UserId alice, bob;
  std::unique_ptr<TestServer> server;  // after what its routes use
  std::uint16_t port = 0;
  std::mutex grants_mutex;
  std::vector<Grant> grants;
  std::atomic<bool> grants_unreachable{false};  // the grant cannot reach the socket's instance
};

// ---- granted ----

TEST_F(RealtimeAuthTest, SignsAnOwnOrderChannelFromAForm) {
  const auto key = key_of(alice, *auth::preset("read_only"));
  const std::string order = order_of(alice);
  const std::string channel = realtime::order_channel(order);
  expect_signed(post_form(key, kSocket, channel), kSocket, channel);
}

TEST_F(RealtimeAuthTest, SignsTheSameChannelFromJson) {
  const auto key = key_of(alice, scopes({auth::Scope::orders_read}));
  const std::string channel = realtime::order_channel(order_of(alice));
  const std::string body = json{{"socket_id", kSocket}, {"channel_name", channel}}.dump();
  expect_signed(post(key.plaintext, body, "application/json"), kSocket, channel);
  expect_signed(post(key.plaintext, body, "application/json; charset=utf-8"), kSocket, channel);
  // Without a Content-Type the body's shape decides.
  expect_signed(post(key.plaintext, body, std::nullopt), kSocket, channel);
  expect_signed(post(key.plaintext, form(kSocket, channel), std::nullopt), kSocket, channel);
}

TEST_F(RealtimeAuthTest, DecodesAFormTheWayPusherJsSendsIt) {
  const auto key = key_of(alice, scopes({auth::Scope::orders_read}));
  const std::string channel = realtime::preview_channel(alice);
  // pusher-js: encodeURIComponent of both values, plus the app's own params; "+" is a space,
  // so an extra field with spaces survives and the known fields are read regardless of order.
  const std::string body = "channel_name=" + form_encode(channel) + "&socket_id=" + form_encode(kSocket) +
                           "&note=hello+there%21&empty=";
  expect_signed(post(key.plaintext, body, "application/x-www-form-urlencoded; charset=UTF-8"), kSocket, channel);
  // Escapes of ordinary characters decode to them.
  const std::string escaped = "socket_id=1234%2E5678&channel_name=private%2Dchunks%2epreview%2E" +
                              std::to_string(alice.value);
  expect_signed(post(key.plaintext, escaped), kSocket, channel);
  // A "+" inside a value is a space, which no socket id holds.
  expect_invalid(post(key.plaintext, "socket_id=1234+5678&channel_name=" + form_encode(channel)), {"socket_id"});
  expect_invalid(post(key.plaintext, "socket_id=" + kSocket + "&channel_name=" + form_encode(channel) + "+"),
                 {"channel_name"});
}

TEST_F(RealtimeAuthTest, SignsEachPerUserChannelWithItsScope) {
  const auto reader = key_of(alice, scopes({auth::Scope::orders_read, auth::Scope::voices_read}));
  expect_signed(post_form(reader, kSocket, realtime::preview_channel(alice)), kSocket,
                realtime::preview_channel(alice));
  expect_signed(post_form(reader, kSocket, realtime::voice_clones_channel(alice)), kSocket,
                realtime::voice_clones_channel(alice));

  const auto reseller = key_of(alice, scopes({auth::Scope::reseller_read}));
  expect_signed(post_form(reseller, kSocket, realtime::reseller_codes_channel(alice)), kSocket,
                realtime::reseller_codes_channel(alice));
}

TEST_F(RealtimeAuthTest, RecordsTheGrantOfTheKeyThatAsked) {
  const TimePoint expires = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now()) +
                            std::chrono::hours(24 * 30);
  const auto key = key_of(alice, scopes({auth::Scope::orders_read}), expires);
  const std::string channel = realtime::order_channel(order_of(alice));
  expect_signed(post_form(key, "77.88", channel), "77.88", channel);

  const auto list = granted();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].socket_id, "77.88");
  EXPECT_EQ(list[0].channel, channel);
  EXPECT_EQ(list[0].key_id, key.key.key_id);
  EXPECT_EQ(list[0].user, alice);
  EXPECT_EQ(list[0].key_hash, key.key.key_hash);
  EXPECT_EQ(list[0].key_hash, crypto::sha256(key.plaintext));
  ASSERT_TRUE(list[0].expires_at);
  EXPECT_EQ(*list[0].expires_at, *key.key.expires_at);

  const auto other = key_of(alice, scopes({auth::Scope::orders_read}));
  expect_signed(post_form(other, "1.2", realtime::preview_channel(alice)), "1.2", realtime::preview_channel(alice));
  const auto after = granted();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1].key_id, other.key.key_id);
  EXPECT_EQ(after[1].channel, realtime::preview_channel(alice));
  EXPECT_FALSE(after[1].expires_at);
}

// An authorization whose grant cannot reach the socket's instance (Redis away, the socket on
// another instance) would subscribe without its key being checked: none is given.
TEST_F(RealtimeAuthTest, GivesNoAuthorizationWhoseGrantCouldNotBeRecorded) {
  const auto key = key_of(alice, scopes({auth::Scope::orders_read}));
  const std::string channel = realtime::order_channel(order_of(alice));
  grants_unreachable = true;
  const auto r = post_form(key, kSocket, channel);
  ASSERT_EQ(r.result_int(), 503) << r.body();
  const json body = json::parse(r.body());
  EXPECT_EQ(body["success"], false);
  EXPECT_TRUE(body["message"].is_string());
  EXPECT_FALSE(body.contains("auth")) << r.body();
  EXPECT_EQ(granted().size(), 1u);  // it was tried
  grants_unreachable = false;
  expect_signed(post_form(key, kSocket, channel), kSocket, channel);
}

// ---- refused: scope and ownership ----

TEST_F(RealtimeAuthTest, RefusesAKeyWithoutTheChannelsScope) {
  const auto key =
      key_of(alice, scopes({auth::Scope::orders_write, auth::Scope::voices_read, auth::Scope::profile_read}));
  expect_forbidden(post_form(key, kSocket, realtime::order_channel(order_of(alice))));
  expect_forbidden(post_form(key, kSocket, realtime::preview_channel(alice)));
  const auto orders_only = key_of(alice, scopes({auth::Scope::orders_read}));
  expect_forbidden(post_form(orders_only, kSocket, realtime::voice_clones_channel(alice)));
  expect_forbidden(post_form(orders_only, kSocket, realtime::reseller_codes_channel(alice)));
  EXPECT_TRUE(granted().empty());
}

TEST_F(RealtimeAuthTest, WildcardDoesNotOpenTheResellerChannel) {
  const auto star = key_of(alice, wildcard());
  expect_forbidden(post_form(star, kSocket, realtime::reseller_codes_channel(alice)));
  // ... but opens every other channel.
  expect_signed(post_form(star, kSocket, realtime::voice_clones_channel(alice)), kSocket,
                realtime::voice_clones_channel(alice));
  const std::string channel = realtime::order_channel(order_of(alice));
  expect_signed(post_form(star, kSocket, channel), kSocket, channel);

  auth::ScopeSet star_and_reseller = wildcard();
  star_and_reseller.add(auth::Scope::reseller_read);
  const auto explicit_reseller = key_of(alice, star_and_reseller);
  expect_signed(post_form(explicit_reseller, kSocket, realtime::reseller_codes_channel(alice)), kSocket,
                realtime::reseller_codes_channel(alice));
}

TEST_F(RealtimeAuthTest, AnswersTheSame403ForAnotherUsersOrderAndANonexistentOne) {
  const auto key = key_of(alice, wildcard());
  const Response foreign = post_form(key, kSocket, realtime::order_channel(order_of(bob)));
  const Response missing = post_form(key, kSocket, realtime::order_channel(kMissingOrder));
  expect_forbidden(foreign);
  expect_forbidden(missing);
  EXPECT_EQ(foreign.body(), missing.body());
  EXPECT_TRUE(granted().empty());

  // The owner is still served.
  const auto bobs_key = key_of(bob, scopes({auth::Scope::orders_read}));
  const std::string bobs_order = order_of(bob);
  expect_signed(post_form(bobs_key, kSocket, realtime::order_channel(bobs_order)), kSocket,
                realtime::order_channel(bobs_order));
}

TEST_F(RealtimeAuthTest, RefusesAnotherUsersPerUserChannels) {
  auth::ScopeSet all = wildcard();
  all.add(auth::Scope::reseller_read);
  const auto key = key_of(alice, all);
  const Response preview = post_form(key, kSocket, realtime::preview_channel(bob));
  expect_forbidden(preview);
  expect_forbidden(post_form(key, kSocket, realtime::voice_clones_channel(bob)));
  expect_forbidden(post_form(key, kSocket, realtime::reseller_codes_channel(bob)));
  // A user id nobody has gets the same answer.
  const Response nobody = post_form(key, kSocket, realtime::preview_channel(UserId{alice.value + bob.value + 1000}));
  expect_forbidden(nobody);
  EXPECT_EQ(preview.body(), nobody.body());
  EXPECT_TRUE(granted().empty());
}

TEST_F(RealtimeAuthTest, RefusesAMissingOrUnknownKey) {
  const std::string channel = realtime::preview_channel(alice);
  const Response none = post(std::nullopt, form(kSocket, channel));
  EXPECT_EQ(none.result_int(), 401) << none.body();
  const Response unknown = post("mg_not_a_real_key_0123456789", form(kSocket, channel));
  EXPECT_EQ(unknown.result_int(), 401) << unknown.body();
  EXPECT_TRUE(granted().empty());
}

// ---- refused: malformed input ----

TEST_F(RealtimeAuthTest, RefusesMalformedSocketIds) {
  const auto key = key_of(alice, wildcard());
  const std::string channel = realtime::preview_channel(alice);
  const std::vector<std::string> malformed{"",     "1.",   ".1",   "a.b",  "1.2.3", std::string(25, '1'),
                                           "1.2\n", " 1.2", "-1.2", "1..2", std::string("1.2\0", 4),
                                           "123456789012345678901.1"};
  for (const std::string& socket_id : malformed) {
    SCOPED_TRACE(printable(socket_id));
    expect_invalid(post_form(key, socket_id, channel), {"socket_id"});
    expect_invalid(post(key.plaintext, json{{"socket_id", socket_id}, {"channel_name", channel}}.dump(),
                        "application/json"),
                   {"socket_id"});
  }
  EXPECT_TRUE(granted().empty());
}

TEST_F(RealtimeAuthTest, RefusesChannelsThatAreNotOursWith422) {
  const auto key = key_of(alice, wildcard());
  const std::string id = std::to_string(alice.value);
  for (const std::string& channel : std::vector<std::string>{
           "chunks.preview." + id,                     // public
           "presence-chunks.preview." + id,            // presence
           "private-encrypted-chunks.preview." + id,
           "private-order.task." + kMissingOrder + "x",
           "private-order.task.not-a-uuid",
           "private-order.task." + std::string("0F8FAD5B-D9CB-469F-A165-70867728950E"),
           "private-chunks.preview.0" + id,
           "private-chunks.preview.-" + id,
           "private-chunks.preview.99999999999999999999",
           "private-foo",
           "private-chunks.preview." + id + std::string(200, '0'),
           std::string(201, 'a'),
       }) {
    SCOPED_TRACE(channel);
    expect_invalid(post_form(key, kSocket, channel), {"channel_name"});
  }
  EXPECT_TRUE(granted().empty());
}

TEST_F(RealtimeAuthTest, RefusesMissingFieldsAndBadBodies) {
  const auto key = key_of(alice, wildcard());
  const std::string channel = realtime::preview_channel(alice);
  expect_invalid(post(key.plaintext, ""), {"socket_id", "channel_name"});
  expect_invalid(post(key.plaintext, "", "application/json"), {"socket_id", "channel_name"});
  expect_invalid(post(key.plaintext, "", std::nullopt), {"socket_id", "channel_name"});
  expect_invalid(post(key.plaintext, "socket_id=" + kSocket), {"channel_name"});
  expect_invalid(post(key.plaintext, "channel_name=" + form_encode(channel)), {"socket_id"});
  expect_invalid(post(key.plaintext, "socket_id=&channel_name="), {"socket_id", "channel_name"});
  expect_invalid(post(key.plaintext, "socket_id&channel_name"), {"socket_id", "channel_name"});
  expect_invalid(post(key.plaintext, "garbage"), {"socket_id", "channel_name"});
  expect_invalid(post(key.plaintext, "{}", "application/json"), {"socket_id", "channel_name"});
  expect_invalid(post(key.plaintext, json{{"socket_id", kSocket}}.dump(), "application/json"), {"channel_name"});
  expect_invalid(
      post(key.plaintext, json{{"socket_id", nullptr}, {"channel_name", channel}}.dump(), "application/json"),
      {"socket_id"});
  // Wrong JSON types.
  expect_invalid(
      post(key.plaintext, R"({"socket_id":1234.5678,"channel_name":")" + channel + R"("})", "application/json"),
      {"socket_id"});
  expect_invalid(post(key.plaintext, json{{"socket_id", kSocket}, {"channel_name", json::array({channel})}}.dump(),
                      "application/json"),
                 {"channel_name"});
  // Malformed JSON, and JSON that is not an object.
  expect_invalid(post(key.plaintext, R"({"socket_id":")" + kSocket, "application/json"), {"body"});
  expect_invalid(post(key.plaintext, "{,}", std::nullopt), {"body"});
  expect_invalid(post(key.plaintext, json::array({kSocket, channel}).dump(), "application/json"), {"body"});
  expect_invalid(post(key.plaintext, R"("socket_id")", "application/json"), {"body"});
  // A form sent as JSON is malformed JSON.
  expect_invalid(post(key.plaintext, form(kSocket, channel), "application/json"), {"body"});
  EXPECT_TRUE(granted().empty());
}

TEST_F(RealtimeAuthTest, RefusesAnUnsupportedContentType) {
  const auto key = key_of(alice, wildcard());
  const Response r = post(key.plaintext, form(kSocket, realtime::preview_channel(alice)), "text/plain");
  EXPECT_EQ(r.result_int(), 415) << r.body();
  EXPECT_TRUE(granted().empty());
}

TEST_F(RealtimeAuthTest, RefusesABodyOverTheLimitBeforeReadingIt) {
  const auto key = key_of(alice, wildcard());
  const std::string big = form(kSocket, realtime::preview_channel(alice)) + "&pad=" + std::string(1024 * 1024, 'x');
  const Response r = post(key.plaintext, big);
  EXPECT_EQ(r.result_int(), 413) << r.body().substr(0, 200);
  EXPECT_TRUE(granted().empty());
}

// Generated near-misses of valid requests: every one is refused with 422, none is signed and
// none breaks the server.
TEST_F(RealtimeAuthTest, NeverSignsOrFailsOnAThousandMalformedRequests) {
  const auto key = key_of(alice, wildcard());
  const std::vector<std::string> good_channels = {
      realtime::preview_channel(alice), realtime::voice_clones_channel(alice),
      realtime::order_channel(order_of(alice)), realtime::reseller_codes_channel(alice)};
  const std::string alphabet = "0123456789.-_=@,;:+%/ abcdefxyzPRIVATE\"\\{}\n\t\x01\xff";
  std::mt19937 rng(20240611);
  auto pick = [&rng](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  auto mutate = [&](std::string s) {
    const std::size_t edits = 1 + pick(3);
    for (std::size_t e = 0; e < edits; ++e) {
      const std::size_t op = pick(4);
      const std::size_t at = s.empty() ? 0 : pick(s.size() + 1);
      const char c = alphabet[pick(alphabet.size())];
      if (op == 0 && !s.empty() && at < s.size()) s.erase(at, 1);
      else if (op == 1) s.insert(at, 1, c);
      else if (op == 2 && !s.empty() && at < s.size()) s[at] = c;
      else s = s.substr(0, at);
    }
    return s;
  };

  test::TestClient client(port);
  int sent = 0;
  while (sent < 1000) {
    std::string socket_id = kSocket;
    std::string channel = good_channels[pick(good_channels.size())];
    const std::size_t which = pick(3);
    if (which != 1) socket_id = mutate(socket_id);
    if (which != 0) channel = mutate(channel);
    // Only malformed cases: a mutation may land on another valid name.
    if (realtime::valid_socket_id(socket_id) && realtime::parse_channel(channel)) continue;
    ++sent;

    Request req{bhttp::verb::post, "/api/broadcasting/auth", 11};
    req.set("X-API-KEY", key.plaintext);
    if (sent % 2 == 0) {
      req.set(bhttp::field::content_type, kFormType);
      req.body() = form(socket_id, channel);
    } else {
      req.set(bhttp::field::content_type, "application/json");
      // Bytes that are not UTF-8 cannot be JSON text; send them escaped as Latin-1 code points.
      json body = json::object();
      auto as_text = [](const std::string& s) {
        std::string out;
        for (char ch : s) {
          const auto c = static_cast<unsigned char>(ch);
          if (c < 0x80) {
            out += ch;
          } else {
            out += static_cast<char>(0xC0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3F));
          }
        }
        return out;
      };
      body["socket_id"] = as_text(socket_id);
      body["channel_name"] = as_text(channel);
      req.body() = body.dump();
    }
    req.prepare_payload();
    const Response r = client.send(std::move(req));
    ASSERT_EQ(r.result_int(), 422) << printable(socket_id) << " " << printable(channel) << " -> " << r.body();
  }
  EXPECT_TRUE(granted().empty());
}

}  // namespace
}  // namespace mediagen::test
