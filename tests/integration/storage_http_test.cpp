// POST /storage/url and the signed link it returns, through the real pipeline and HTTP server
// with real pools, a temporary store folder and an injected ownership check.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <mutex>
#include <set>
#include <thread>

#include "mediagen/account/users.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/storage/local_store.hpp"
#include "mediagen/storage/routes.hpp"
#include "support.hpp"
#include "test_client.hpp"
#include "test_server.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;
using json = nlohmann::json;
using namespace std::chrono_literals;

using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;

const std::string kPublicUrl = "https://media.example";
const std::string kOrderA = "orders/0f8fad5b-d9cb-469f-a165-70867728950e";
const std::string kOrderB = "orders/7c9e6679-7425-40de-944b-e07fc1f90ae7";


// The system clock moved by whole seconds on request, so expiry needs no sleeping.
class SteerableClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now() + std::chrono::seconds(offset_.load()); }
  void advance(std::chrono::seconds by) { offset_ += by.count(); }

 private:
  std::atomic<std::int64_t> offset_{0};
};

std::string binary_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + 3) & 0xFF);
  return s;
}

class StorageHttpTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    std::string pattern = (fs::temp_directory_path() / "mg-storage-http-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    temp = pattern;
    auto opened = storage::LocalStore::open((temp / "root").string());
    ASSERT_TRUE(opened) << opened.error().detail;
    store.emplace(std::move(*opened));

    server = std::make_unique<TestServer>(
        TestServerOptions{db_url, redis_url, prefix}, clock, counters,
        [this](http::Router& router, db::BlockingPool& pool, db::AsyncPg&) {
          storage::register_routes(
              router, pool,
              {.store = *store,
               .signer = storage::LinkSigner("test-secret"),
               .clock = clock,
               .public_url = kPublicUrl + "/",
               .link_ttl = 15min,
               .authorize_path = [this](db::Db&, UserId user, std::string_view path) -> Result<void> {
                 authorize_calls.fetch_add(1);
                 std::lock_guard lock(owned_mutex);
                 if (owned.count({user.value, std::string(path)}) == 0) return ApiError::not_found();
                 return {};
               }});
        });
    port = server->port();
  }

  void TearDown() override {
    server.reset();
    std::error_code ec;
    if (!temp.empty()) fs::remove_all(temp, ec);
    MigratedTest::TearDown();
  }

  auth::CreatedKey create_key(auth::ScopeSet scopes) {
    db::Db db(db_url, &counters);
    const auto user = account::create_user(db, {.email = "owner-" + random_hex(4) + "@example.com"});
    return auth::create_key(db, {.user = user.id, .scopes = scopes});
  }
  auth::CreatedKey downloader() { return create_key(*auth::preset("read_only")); }

  void own(const auth::CreatedKey& key, const std::string& path) {
    std::lock_guard lock(owned_mutex);
    owned.insert({key.key.user_id.value, path});
  }

  Response send(Request req) {
    test::TestClient c(port);
    return c.send(std::move(req));
  }

  Response post_url(const auth::CreatedKey& key, const std::string& body) {
    Request req{bhttp::verb::post, "/api/storage/url", 11};
    req.set("X-API-KEY", key.plaintext);
    req.set(bhttp::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    return send(std::move(req));
  }

  // A link for `path` owned by `key`; fails the test when none is issued.
  std::string link_for(const auth::CreatedKey& key, const std::string& path, bool download = false) {
    const Response r = post_url(key, json{{"path", path}, {"download", download}}.dump());
    EXPECT_EQ(r.result_int(), 200) << r.body();
    const json body = json::parse(r.body(), nullptr, false);
    if (!body.is_object() || !body.contains("data")) return {};
    return body["data"]["url"].get<std::string>();
  }

  // The link as a request target on this server (its origin is the public URL).
  static std::string target_of(const std::string& url) {
    EXPECT_EQ(url.rfind(kPublicUrl + "/api/storage/download?", 0), 0u) << url;
    return url.substr(kPublicUrl.size());
  }

  Response get(const std::string& target, std::optional<std::string> range = std::nullopt,
               bhttp::verb verb = bhttp::verb::get) {
    Request req{verb, target, 11};
    if (range) req.set(bhttp::field::range, *range);
    return send(std::move(req));
  }

  SteerableClock clock;
  fs::path temp;
  std::optional<storage::LocalStore> store;
  std::unique_ptr<TestServer> server;  // after what its routes use
  std::uint16_t port = 0;

  std::mutex owned_mutex;
  std::set<std::pair<std::int64_t, std::string>> owned;
  std::atomic<int> authorize_calls{0};
};

TEST_F(StorageHttpTest, IssuesALinkThatServesTheFile) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  const std::string bytes = binary_bytes(10'000);
  ASSERT_TRUE(store->put(path, bytes));
  own(key, path);

  const Response issued = post_url(key, json{{"path", path}}.dump());
  ASSERT_EQ(issued.result_int(), 200) << issued.body();
  const json body = json::parse(issued.body());
  EXPECT_EQ(body["success"], true);
  const std::string url = body["data"]["url"];
  EXPECT_NE(url.find("path=orders%2F0f8fad5b-d9cb-469f-a165-70867728950e%2Fresult.mp3"), std::string::npos) << url;
  EXPECT_NE(url.find("&download=0&"), std::string::npos) << url;
  // expires_at is the link's own expiry, in ISO 8601 with an offset.
  const auto expires_at = parse_iso8601(body["data"]["expires_at"].get<std::string>());
  ASSERT_TRUE(expires_at) << body["data"]["expires_at"];
  const std::string expires_param = url.substr(url.find("expires=") + 8, url.find("&download") - url.find("expires=") - 8);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(expires_at->time_since_epoch()).count(),
            std::stoll(expires_param));

  const Response file = get(target_of(url));
  ASSERT_EQ(file.result_int(), 200) << file.body();
  EXPECT_EQ(file.body(), bytes);
  EXPECT_EQ(header(file, "Content-Type"), "audio/mpeg");
  EXPECT_EQ(header(file, "Content-Length"), "10000");
  EXPECT_EQ(header(file, "Accept-Ranges"), "bytes");
  EXPECT_EQ(header(file, "Content-Disposition"), "inline; filename=\"result.mp3\"");
  EXPECT_EQ(header(file, "Cache-Control").rfind("private, max-age=", 0), 0u);
  EXPECT_EQ(header(file, "X-Content-Type-Options"), "nosniff");
}

TEST_F(StorageHttpTest, MarksADownloadLinkAsAnAttachmentAndTextWithACharset) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.srt";
  ASSERT_TRUE(store->put(path, "1\n00:00:00,000 --> 00:00:01,200\nПривет\n"));
  own(key, path);
  const Response file = get(target_of(link_for(key, path, true)));
  ASSERT_EQ(file.result_int(), 200);
  EXPECT_EQ(header(file, "Content-Disposition"), "attachment; filename=\"result.srt\"");
  EXPECT_EQ(header(file, "Content-Type"), "application/x-subrip; charset=utf-8");
}

TEST_F(StorageHttpTest, ServesOneRangeAs206) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  const std::string bytes = binary_bytes(1000);
  ASSERT_TRUE(store->put(path, bytes));
  own(key, path);
  const std::string target = target_of(link_for(key, path));

  const Response middle = get(target, "bytes=100-199");
  ASSERT_EQ(middle.result_int(), 206);
  EXPECT_EQ(middle.body(), bytes.substr(100, 100));
  EXPECT_EQ(header(middle, "Content-Range"), "bytes 100-199/1000");
  EXPECT_EQ(header(middle, "Content-Length"), "100");
  EXPECT_EQ(header(middle, "Content-Type"), "audio/mpeg");

  const Response open_end = get(target, "bytes=990-");
  ASSERT_EQ(open_end.result_int(), 206);
  EXPECT_EQ(open_end.body(), bytes.substr(990));
  EXPECT_EQ(header(open_end, "Content-Range"), "bytes 990-999/1000");

  const Response suffix = get(target, "bytes=-10");
  ASSERT_EQ(suffix.result_int(), 206);
  EXPECT_EQ(suffix.body(), bytes.substr(990));

  const Response several = get(target, "bytes=0-1,5-6");
  EXPECT_EQ(several.result_int(), 200);
  EXPECT_EQ(several.body(), bytes);
}

TEST_F(StorageHttpTest, Answers416ForARangePastTheEnd) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  ASSERT_TRUE(store->put(path, binary_bytes(1000)));
  own(key, path);
  const std::string target = target_of(link_for(key, path));
  for (const char* range : {"bytes=1000-", "bytes=5000-6000", "bytes=-0"}) {
    const Response r = get(target, range);
    EXPECT_EQ(r.result_int(), 416) << range;
    EXPECT_EQ(header(r, "Content-Range"), "bytes */1000") << range;
    const json body = json::parse(r.body());
    EXPECT_EQ(body["success"], false);
    EXPECT_TRUE(body["message"].is_string());
  }
}

TEST_F(StorageHttpTest, AnswersHeadWithTheHeadersAndNoBody) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  ASSERT_TRUE(store->put(path, binary_bytes(1234)));
  own(key, path);
  const Response r = get(target_of(link_for(key, path)), std::nullopt, bhttp::verb::head);
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_EQ(header(r, "Content-Length"), "1234");
  EXPECT_EQ(header(r, "Accept-Ranges"), "bytes");
  EXPECT_TRUE(r.body().empty());
}

TEST_F(StorageHttpTest, RefusesEveryFlippedBitOfTheLinkWith403) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  ASSERT_TRUE(store->put(path, "audio"));
  own(key, path);
  const std::string target = target_of(link_for(key, path));
  const std::size_t query = target.find('?') + 1;
  // Every bit of the path, expiry and signature values, one request (and connection) each.
  int checked = 0;
  for (const std::string name : {"path=", "expires=", "signature="}) {
    const std::size_t start = target.find(name, query) + name.size();
    std::size_t end = target.find('&', start);
    if (end == std::string::npos) end = target.size();
    for (std::size_t i = start; i < end; ++i) {
      for (int bit = 0; bit < 7; ++bit) {  // 7 bits: the request line stays ASCII
        std::string flipped = target;
        flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
        const char c = flipped[i];
        // What a client cannot send in a request target (controls, space, the fragment mark).
        if (c <= 0x20 || c == 0x7f || c == '#') continue;
        const Response r = get(flipped);
        EXPECT_EQ(r.result_int(), 403) << flipped;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 300);
  EXPECT_EQ(get(target).result_int(), 200) << "the genuine link still works";
}

TEST_F(StorageHttpTest, RefusesAChangedDispositionAndMissingParametersWith403) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  ASSERT_TRUE(store->put(path, "audio"));
  own(key, path);
  const std::string target = target_of(link_for(key, path));
  std::string attachment = target;
  attachment.replace(attachment.find("download=0"), 10, "download=1");
  const Response changed = get(attachment);
  EXPECT_EQ(changed.result_int(), 403);
  const json body = json::parse(changed.body());
  EXPECT_EQ(body["success"], false);
  EXPECT_TRUE(body["message"].is_string());
  EXPECT_FALSE(body.contains("data"));

  for (const char* name : {"path=", "expires=", "download=", "signature="}) {
    std::string missing = target;
    const std::size_t at = missing.find(name);
    const std::size_t end = missing.find('&', at);
    missing.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
    EXPECT_EQ(get(missing).result_int(), 403) << missing;
  }
  EXPECT_EQ(get("/api/storage/download").result_int(), 403);
  EXPECT_EQ(get(target + "&signature=x").result_int(), 403) << "a repeated parameter";
}

TEST_F(StorageHttpTest, AnswersGoneOnceTheLinkExpires) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  ASSERT_TRUE(store->put(path, "audio"));
  own(key, path);
  const std::string target = target_of(link_for(key, path));
  clock.advance(14min);
  EXPECT_EQ(get(target).result_int(), 200) << "within the 15 minutes";
  clock.advance(2min);
  const Response r = get(target);
  EXPECT_EQ(r.result_int(), 410);
  EXPECT_EQ(json::parse(r.body())["success"], false);
  const std::string fresh = target_of(link_for(key, path));
  EXPECT_EQ(get(fresh).result_int(), 200) << "a fresh link works again";
}

TEST_F(StorageHttpTest, Answers404OnceRetentionRemovedTheFile) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  ASSERT_TRUE(store->put(path, "audio"));
  own(key, path);
  const std::string target = target_of(link_for(key, path));
  ASSERT_TRUE(store->remove_prefix(kOrderA + "/"));
  const Response r = get(target);
  EXPECT_EQ(r.result_int(), 404);
  EXPECT_EQ(json::parse(r.body())["success"], false);
  // The order still lists the path: a link is still issued, and it still answers 404.
  EXPECT_EQ(get(target_of(link_for(key, path))).result_int(), 404);
}

TEST_F(StorageHttpTest, NeverServesAPlantedSymlink) {
  const auto key = downloader();
  const std::string path = kOrderA + "/result.mp3";
  fs::create_directories(temp / "root" / kOrderA);
  {
    std::ofstream secret(temp / "secret.txt");
    secret << "outside the store";
  }
  fs::create_symlink(temp / "secret.txt", temp / "root" / path);
  own(key, path);
  const Response r = get(target_of(link_for(key, path)));
  EXPECT_EQ(r.result_int(), 404);
  EXPECT_EQ(r.body().find("outside the store"), std::string::npos);
}

TEST_F(StorageHttpTest, AnswersNotFoundForAnotherUsersPath) {
  const auto owner = downloader();
  const auto other = downloader();
  const std::string path = kOrderA + "/result.mp3";
  ASSERT_TRUE(store->put(path, "audio"));
  own(owner, path);
  const Response r = post_url(other, json{{"path", path}}.dump());
  EXPECT_EQ(r.result_int(), 404);
  EXPECT_EQ(json::parse(r.body())["success"], false);
  EXPECT_EQ(post_url(owner, json{{"path", kOrderB + "/result.mp3"}}.dump()).result_int(), 404);
}

TEST_F(StorageHttpTest, NeedsTheDownloadPermission) {
  auth::ScopeSet read_only_orders;
  read_only_orders.add(auth::Scope::orders_read);
  const auto key = create_key(read_only_orders);
  const std::string path = kOrderA + "/result.mp3";
  own(key, path);
  const Response r = post_url(key, json{{"path", path}}.dump());
  EXPECT_EQ(r.result_int(), 403);
  EXPECT_EQ(authorize_calls.load(), 0) << "nothing runs without the permission";

  Request no_key{bhttp::verb::post, "/api/storage/url", 11};
  no_key.set(bhttp::field::content_type, "application/json");
  no_key.body() = json{{"path", path}}.dump();
  no_key.prepare_payload();
  EXPECT_EQ(send(std::move(no_key)).result_int(), 401);
}

TEST_F(StorageHttpTest, Answers422ForAMissingOrMalformedPathOrDownload) {
  const auto key = downloader();
  struct Case {
    std::string body;
    std::string field;
  };
  for (const Case& c : std::vector<Case>{
           {"{}", "path"},
           {R"({"path":null})", "path"},
           {R"({"path":""})", "path"},
           {R"({"path":42})", "path"},
           {R"({"path":["a"]})", "path"},
           {R"({"path":"../etc/passwd"})", "path"},
           {R"({"path":"/etc/passwd"})", "path"},
           {R"({"path":"orders/%2e%2e/x"})", "path"},
           {R"({"path":"orders\\..\\x"})", "path"},
           {R"({"path":"orders/x\u0000.mp3"})", "path"},
           {R"({"path":"orders/x/result.mp3","download":"yes"})", "download"},
           {R"({"path":"orders/x/result.mp3","download":1})", "download"},
           {R"([1])", "body"},
       }) {
    const Response r = post_url(key, c.body);
    EXPECT_EQ(r.result_int(), 422) << c.body;
    const json body = json::parse(r.body());
    EXPECT_FALSE(body.contains("success")) << c.body;
    EXPECT_TRUE(body["errors"].contains(c.field)) << c.body << " -> " << r.body();
  }
  EXPECT_EQ(authorize_calls.load(), 0) << "validation comes before the ownership check";
}

}  // namespace
}  // namespace mediagen::test
