#include "mediagen/docs/site.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mediagen::docs {
namespace {

bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

TEST(DocsEmbedded, HoldTheDescriptionsAsTheyWereBuilt) {
  bool openapi = false;
  bool asyncapi = false;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.name == "openapi.yaml") openapi = f.bytes.starts_with("openapi: 3.");
    if (f.name == "asyncapi.yaml") asyncapi = f.bytes.starts_with("asyncapi: ");
    EXPECT_FALSE(f.bytes.empty()) << f.name;
  }
  EXPECT_TRUE(openapi);
  EXPECT_TRUE(asyncapi);
}

TEST(DocsSite, OffersEveryEmbeddedFileAndThePages) {
  const EmbeddedFile files[] = {{"asyncapi.yaml", "a"}, {"openapi.ru.yaml", "r"}, {"openapi.yaml", "o"},
                                {"redoc.standalone.js", "js"}};
  const Site site(files);
  EXPECT_TRUE(site.has_viewer());
  for (const char* path : {"/docs", "/docs/ru", "/docs/asyncapi.yaml", "/docs/openapi.ru.yaml", "/docs/openapi.yaml",
                           "/docs/redoc.standalone.js"}) {
    EXPECT_NE(site.find(path), nullptr) << path;
  }
  EXPECT_EQ(site.documents().size(), 6u);
  EXPECT_EQ(site.find("/docs/openapi.yaml")->bytes, "o");
  EXPECT_NE(site.find("/docs/openapi.yaml")->etag, site.find("/docs/openapi.ru.yaml")->etag);
  EXPECT_TRUE(has(site.find("/docs/ru")->bytes, "Redoc.init('/docs/openapi.ru.yaml'"));
  EXPECT_TRUE(has(site.find("/docs")->bytes, "href=\"/docs/ru\""));
}

TEST(DocsSite, WithoutARussianDescriptionHasNoRussianPage) {
  const EmbeddedFile files[] = {{"asyncapi.yaml", "a"}, {"openapi.yaml", "o"}};
  const Site site(files);
  EXPECT_FALSE(site.has_viewer());
  EXPECT_EQ(site.find("/docs/ru"), nullptr);
  EXPECT_FALSE(has(site.find("/docs")->bytes, "/docs/ru"));
  EXPECT_FALSE(has(site.find("/docs")->bytes, "openapi.ru.yaml"));
}

TEST(DocsPage, WithTheViewerRendersTheDescriptionAndLinksTheOthers) {
  const std::string page = render_page({.spec_file = "openapi.yaml", .lang = "en", .viewer = true, .russian = true,
                                        .asyncapi = true});
  EXPECT_TRUE(has(page, "<html lang=\"en\">"));
  EXPECT_TRUE(has(page, "<script src=\"/docs/redoc.standalone.js\"></script>"));
  EXPECT_TRUE(has(page, "href=\"/docs/asyncapi.yaml\""));
  EXPECT_TRUE(has(page, "href=\"/docs/openapi.ru.yaml\""));
  EXPECT_FALSE(has(page, "http://"));
  EXPECT_FALSE(has(page, "https://"));
}

TEST(DocsPage, WithoutTheViewerSaysSoAndLoadsNoScript) {
  const std::string page = render_page({.spec_file = "openapi.ru.yaml", .lang = "ru", .viewer = false,
                                        .russian = true, .asyncapi = true});
  EXPECT_TRUE(has(page, "<html lang=\"ru\">"));
  EXPECT_FALSE(has(page, "<script"));
  EXPECT_TRUE(has(page, "npm"));
  EXPECT_TRUE(has(page, "href=\"/docs/openapi.yaml\""));
}

}  // namespace
}  // namespace mediagen::docs
