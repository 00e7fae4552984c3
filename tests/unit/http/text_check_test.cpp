// The clean-text stages: the decoded path (400), query parameters and JSON body strings (422
// naming the field).
#include <gtest/gtest.h>

#include "http/stages/stages.hpp"

namespace mediagen::http {
namespace {

class TargetRequest final : public RequestView {
 public:
  explicit TargetRequest(std::string target) : target_(std::move(target)) {}
  Method method() const override { return Method::get; }
  std::string_view method_text() const override { return "GET"; }
  std::string_view target() const override { return target_; }
  std::optional<std::string_view> header(std::string_view) const override { return std::nullopt; }
  std::string_view body() const override { return {}; }

 private:
  std::string target_;
};

struct Checked {
  std::optional<ApiError> path, query;
};

Checked check(const std::string& target) {
  TargetRequest request(target);
  RequestContext ctx{request};
  stages::split_target(request.target(), ctx.path, ctx.query);
  return {stages::check_path_text(ctx), stages::check_query_text(ctx)};
}

std::string field_of(const std::optional<ApiError>& e) {
  if (!e) return "<none>";
  EXPECT_EQ(e->status, 422);
  EXPECT_EQ(e->fields.size(), 1u);
  return e->fields.empty() ? "" : e->fields.front().field;
}

TEST(TextCheck, PathsMustDecodeToCleanText) {
  EXPECT_FALSE(check("/api/orders/12").path);
  EXPECT_FALSE(check("/api/voices/%C3%A9t%C3%A9").path);
  for (const char* bad : {"/api/orders/%FF", "/api/orders/%00", "/api/orders/%C0%AF", "/api/a%0Ab", "/api/%ED%A0%80"}) {
    auto r = check(bad).path;
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad;
  }
}

TEST(TextCheck, QueryParametersAreNamedWhenNotCleanText) {
  EXPECT_FALSE(check("/x?search=%C3%A9t%C3%A9&page=2").query);
  EXPECT_EQ(field_of(check("/x?note=a%09tab").query), "note");
  EXPECT_EQ(field_of(check("/x?note=a%0Abreak").query), "note");
  EXPECT_EQ(field_of(check("/x?page=2&search=%FF").query), "search");
  EXPECT_EQ(field_of(check("/x?search=a%00b").query), "search");
  EXPECT_EQ(field_of(check("/x?search=%1B%5B31m").query), "search");
  EXPECT_EQ(field_of(check("/x?%FF=1").query), "query");
}

TEST(TextCheck, JsonStringsAnywhereAreNamedByTheirPath) {
  using nlohmann::json;
  EXPECT_FALSE(stages::check_json_text(json{{"input_text", "Line one.\nLine two.\tTabbed."}}));
  EXPECT_EQ(field_of(stages::check_json_text(json{{"input_text", std::string("a\0b", 3)}})), "input_text");
  EXPECT_EQ(field_of(stages::check_json_text(json{{"task_data", {{"prompt", "bell\a"}}}})), "task_data.prompt");
  EXPECT_EQ(field_of(stages::check_json_text(json{{"items", json::array({"ok", "\x7f"})}})), "items.1");
  EXPECT_EQ(field_of(stages::check_json_text(json{{std::string("k\0", 2), 1}})), "body");
  EXPECT_EQ(field_of(stages::check_json_text(json{{"config", {{std::string("x\x01"), 1}}}})), "config");
  EXPECT_EQ(field_of(stages::check_json_text(json(std::string("\x02")))), "body");
  EXPECT_FALSE(stages::check_json_text(json{{"n", 5}, {"b", true}, {"z", nullptr}}));
}

}  // namespace
}  // namespace mediagen::http
