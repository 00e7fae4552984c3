// Signed download links over the S3 store: the server streams the object from S3 (with Range),
// or, with a redirect, answers 302 to a presigned S3 URL that serves it. Real pipeline, pools,
// PostgreSQL and the S3 server of s3_bucket.hpp.
#include <gtest/gtest.h>

#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

#include "mediagen/account/users.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/storage/routes.hpp"
#include "s3_bucket.hpp"
#include "storage/s3_http.hpp"
#include "test_client.hpp"
#include "test_server.hpp"

namespace mediagen::test {
namespace {

namespace bhttp = boost::beast::http;
using json = nlohmann::json;
using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;

const std::string kS3PublicUrl = "https://media.example";
const std::string kPath = "orders/0f8fad5b-d9cb-469f-a165-70867728950e/result.mp3";

std::string pattern_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + 5 + (i >> 10)) & 0xFF);
  return s;
}

class S3HttpTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_NO_FATAL_FAILURE(bucket.create());
    store = open_s3(bucket.under("http"));
    ASSERT_TRUE(store);
  }

  void TearDown() override {
    server.reset();
    bucket.remove();
    MigratedTest::TearDown();
  }

  // The storage routes over the S3 store; with `redirect`, links answer 302 to S3.
  void serve(bool redirect) {
    storage::StorageOptions options{.store = *store,
                                    .signer = storage::LinkSigner("test-secret"),
                                    .clock = clock,
                                    .public_url = kS3PublicUrl,
                                    .authorize_path = [](db::Db&, UserId, std::string_view) -> Result<void> { return {}; }};
    if (redirect) {
      options.redirect = [s3 = store.get()](std::string_view key, bool download, std::int64_t seconds, std::int64_t now) {
        return s3->presign_get(key, download, seconds, now);
      };
    }
    server = std::make_unique<TestServer>(TestServerOptions{db_url, redis_url, prefix}, clock, counters,
                                          [options](http::Router& router, db::BlockingPool& pool, db::AsyncPg&) {
                                            storage::register_routes(router, pool, options);
                                          });
  }

  // A link to kPath, as a request target on the test server.
  std::string link(bool download) {
    db::Db db(db_url, &counters);
    const auto user = account::create_user(db, {.email = "owner-" + random_hex(4) + "@example.com"});
    const auto key = auth::create_key(db, {.user = user.id, .scopes = *auth::preset("read_only")});
    Request req{bhttp::verb::post, "/api/storage/url", 11};
    req.set("X-API-KEY", key.plaintext);
    req.set(bhttp::field::content_type, "application/json");
    req.body() = json{{"path", kPath}, {"download", download}}.dump();
    req.prepare_payload();
    const Response r = TestClient(server->port()).send(std::move(req));
    EXPECT_EQ(r.result_int(), 200) << r.body();
    const std::string url = json::parse(r.body(), nullptr, false)["data"]["url"].get<std::string>();
    return url.substr(kS3PublicUrl.size());
  }

  Response get(const std::string& target, std::optional<std::string> range = std::nullopt) {
    Request req{bhttp::verb::get, target, 11};
    if (range) req.set(bhttp::field::range, *range);
    return TestClient(server->port()).send(std::move(req));
  }

  SystemClock clock;
  S3Bucket bucket;
  std::unique_ptr<storage::S3Store> store;
  std::unique_ptr<TestServer> server;  // after what its routes use
};

TEST_F(S3HttpTest, StreamsAnObjectFromS3WholeAndByRange) {
  const std::string bytes = pattern_bytes(3 * 1024 * 1024 + 77);  // more than one download piece
  ASSERT_TRUE(store->put(kPath, bytes));
  serve(false);
  const std::string target = link(false);
  const Response whole = get(target);
  ASSERT_EQ(whole.result_int(), 200) << whole.body().substr(0, 200);
  EXPECT_TRUE(whole.body() == bytes) << "the body differs from the object";
  EXPECT_EQ(header(whole, "Content-Type"), "audio/mpeg");
  const Response part = get(target, "bytes=1048570-1048589");
  ASSERT_EQ(part.result_int(), 206);
  EXPECT_EQ(part.body(), bytes.substr(1048570, 20));
  EXPECT_EQ(header(part, "Content-Range"), "bytes 1048570-1048589/" + std::to_string(bytes.size()));
  ASSERT_TRUE(store->remove(kPath).value());
  EXPECT_EQ(get(target).result_int(), 404) << "removed by retention";
}

TEST_F(S3HttpTest, RedirectsALinkToAPresignedS3UrlThatServesTheObject) {
  ASSERT_TRUE(store->put(kPath, "the object's bytes"));
  serve(true);
  const Response moved = get(link(true));
  ASSERT_EQ(moved.result_int(), 302) << moved.body();
  const std::string location = header(moved, "Location");
  EXPECT_EQ(location.rfind(bucket.options.endpoint + "/" + bucket.options.bucket + "/env/http/" + kPath + "?", 0), 0u)
      << location;
  EXPECT_NE(location.find("response-content-disposition=attachment"), std::string::npos) << location;
  auto fetched = storage::s3::exchange({.method = "GET", .url = location}, {});
  ASSERT_TRUE(fetched) << fetched.error().detail;
  EXPECT_EQ(fetched->status, 200) << fetched->body;
  EXPECT_EQ(fetched->body, "the object's bytes");
}

TEST_F(S3HttpTest, AnswersAForgedLinkWith403BeforeAnyRedirect) {
  serve(true);
  std::string target = link(false);
  target.back() = target.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(get(target).result_int(), 403);
}

}  // namespace
}  // namespace mediagen::test
