// GET /docs and the raw descriptions through the real pipeline and HTTP server: content types,
// ETag and 304, HEAD, 405 with Allow, no key needed, and a build without the viewer.
#include <gtest/gtest.h>

#include <boost/beast/http/string_body.hpp>
#include <memory>
#include <string>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/docs/routes.hpp"
#include "mediagen/http/router.hpp"
#include "support.hpp"
#include "test_client.hpp"
#include "test_server.hpp"

namespace mediagen::test {
namespace {

namespace bhttp = boost::beast::http;

std::string header(const Response& r, std::string_view name) {
  auto it = r.find(name);
  return it == r.end() ? std::string() : std::string(it->value());
}

// Larger than one piece of a streamed answer (64 KiB), so the pieces must add up.
std::string yaml_bytes() {
  std::string s = "openapi: 3.1.0\ninfo:\n  title: Тест\n";
  while (s.size() < 200 * 1024) s += "# line " + std::to_string(s.size()) + "\n";
  return s;
}

class DocsHttpTest : public MigratedTest {
 protected:
  void start(std::vector<docs::EmbeddedFile> files) {
    files_ = std::move(files);
    auto site = std::make_shared<const docs::Site>(files_);
    server = std::make_unique<TestServer>(TestServerOptions{db_url, redis_url, prefix}, clock, counters,
                                          [site](http::Router& router, db::BlockingPool&, db::AsyncPg&) {
                                            docs::register_routes(router, site);
                                          });
  }
  void TearDown() override {
    server.reset();
    MigratedTest::TearDown();
  }

  Response send(bhttp::verb verb, const std::string& target, const std::string& if_none_match = "") {
    Request req{verb, target, 11};
    if (!if_none_match.empty()) req.set(bhttp::field::if_none_match, if_none_match);
    req.prepare_payload();
    TestClient c(server->port());
    return c.send(std::move(req));
  }

  const std::string yaml = yaml_bytes();
  const std::string async = "asyncapi: 3.0.0\n";
  const std::string viewer = "window.Redoc = {init() {}};\n";
  SystemClock clock;
  std::vector<docs::EmbeddedFile> files_;
  std::unique_ptr<TestServer> server;
};

TEST_F(DocsHttpTest, ServesThePageAndTheRawFilesWithoutAKey) {
  start({{"asyncapi.yaml", async}, {"openapi.yaml", yaml}, {"redoc.standalone.js", viewer}});

  const Response page = send(bhttp::verb::get, "/docs");
  ASSERT_EQ(page.result_int(), 200) << page.body();
  EXPECT_EQ(header(page, "Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body().find("<script src=\"/docs/redoc.standalone.js\"></script>"), std::string::npos);
  EXPECT_NE(page.body().find("Redoc.init('/docs/openapi.yaml'"), std::string::npos);
  EXPECT_NE(page.body().find("href=\"/docs/asyncapi.yaml\""), std::string::npos);

  const Response raw = send(bhttp::verb::get, "/docs/openapi.yaml");
  ASSERT_EQ(raw.result_int(), 200);
  EXPECT_EQ(header(raw, "Content-Type"), "application/yaml; charset=utf-8");
  EXPECT_EQ(raw.body(), yaml);
  EXPECT_EQ(header(raw, "Cache-Control"), "no-cache");
  EXPECT_EQ(header(raw, "Content-Length"), std::to_string(yaml.size()));

  const Response js = send(bhttp::verb::get, "/docs/redoc.standalone.js");
  ASSERT_EQ(js.result_int(), 200);
  EXPECT_EQ(header(js, "Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(js.body(), viewer);
  EXPECT_EQ(send(bhttp::verb::get, "/docs/asyncapi.yaml").body(), async);
}

TEST_F(DocsHttpTest, AnswersAMatchingIfNoneMatchWith304) {
  start({{"openapi.yaml", yaml}});
  const Response first = send(bhttp::verb::get, "/docs/openapi.yaml");
  const std::string tag = header(first, "ETag");
  ASSERT_EQ(tag.size(), 34u) << tag;  // a quoted 128-bit hex digest
  EXPECT_EQ(tag.front(), '"');

  const Response same = send(bhttp::verb::get, "/docs/openapi.yaml", tag);
  EXPECT_EQ(same.result_int(), 304);
  EXPECT_EQ(same.body(), "");
  EXPECT_EQ(header(same, "ETag"), tag);
  EXPECT_EQ(send(bhttp::verb::get, "/docs/openapi.yaml", "\"other\", W/" + tag).result_int(), 304);
  EXPECT_EQ(send(bhttp::verb::get, "/docs/openapi.yaml", "*").result_int(), 304);

  const Response other = send(bhttp::verb::get, "/docs/openapi.yaml", "\"other\"");
  EXPECT_EQ(other.result_int(), 200);
  EXPECT_EQ(other.body(), yaml);
  // The page is another representation with a tag of its own.
  const std::string page_tag = header(send(bhttp::verb::get, "/docs"), "ETag");
  EXPECT_FALSE(page_tag.empty());
  EXPECT_NE(page_tag, tag);
  EXPECT_EQ(send(bhttp::verb::get, "/docs", page_tag).result_int(), 304);
}

TEST_F(DocsHttpTest, HeadAnswersTheHeadAlone) {
  start({{"openapi.yaml", yaml}});
  const Response head = send(bhttp::verb::head, "/docs/openapi.yaml");
  EXPECT_EQ(head.result_int(), 200);
  EXPECT_EQ(head.body(), "");
  EXPECT_EQ(header(head, "Content-Length"), std::to_string(yaml.size()));
  EXPECT_EQ(header(head, "Content-Type"), "application/yaml; charset=utf-8");
  EXPECT_FALSE(header(head, "ETag").empty());
}

TEST_F(DocsHttpTest, OtherMethodsAnswer405WithAllow) {
  start({{"openapi.yaml", yaml}});
  for (auto verb : {bhttp::verb::post, bhttp::verb::put, bhttp::verb::delete_}) {
    for (const char* path : {"/docs", "/docs/openapi.yaml"}) {
      const Response r = send(verb, path);
      EXPECT_EQ(r.result_int(), 405) << path;
      EXPECT_EQ(header(r, "Allow"), "GET, HEAD") << path;
    }
  }
}

TEST_F(DocsHttpTest, UnknownFilesAreUnknownPaths) {
  start({{"openapi.yaml", yaml}});
  for (const char* path : {"/docs/openapi.ru.yaml", "/docs/redoc.standalone.js", "/docs/ru", "/docs/x"}) {
    const Response r = send(bhttp::verb::get, path);
    EXPECT_EQ(r.result_int(), 404) << path;
    EXPECT_NE(r.body().find("endpoint_not_found"), std::string::npos) << r.body();
  }
}

TEST_F(DocsHttpTest, WithoutTheViewerThePageLinksTheRawFiles) {
  start({{"asyncapi.yaml", async}, {"openapi.ru.yaml", yaml}, {"openapi.yaml", yaml}});
  const Response page = send(bhttp::verb::get, "/docs");
  ASSERT_EQ(page.result_int(), 200);
  EXPECT_EQ(page.body().find("<script"), std::string::npos);
  EXPECT_NE(page.body().find("was not bundled"), std::string::npos);
  for (const char* link : {"/docs/openapi.yaml", "/docs/openapi.ru.yaml", "/docs/asyncapi.yaml"}) {
    EXPECT_NE(page.body().find(std::string("href=\"") + link + "\""), std::string::npos) << link;
  }
  const Response ru = send(bhttp::verb::get, "/docs/ru");
  ASSERT_EQ(ru.result_int(), 200);
  EXPECT_NE(ru.body().find("<html lang=\"ru\">"), std::string::npos);
  EXPECT_EQ(send(bhttp::verb::get, "/docs/openapi.ru.yaml").body(), yaml);
}

}  // namespace
}  // namespace mediagen::test
