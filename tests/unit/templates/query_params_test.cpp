// The query-string parser and the checked paging parameters the template and voice lists use.
#include <gtest/gtest.h>

#include "mediagen/http/query.hpp"

namespace mediagen::http {
namespace {

TEST(QueryString, DecodesNamesAndValues) {
  const auto q = Query::parse("a=1&b=x%20y&c=a+b&t[]=1&t[]=2&t=3&empty=&flag&=skipped&%C3%A9=%D0%AF");
  EXPECT_EQ(q.get("a"), "1");
  EXPECT_EQ(q.get("b"), "x y");
  EXPECT_EQ(q.get("c"), "a b");
  EXPECT_EQ(q.get("empty"), "");
  EXPECT_EQ(q.get("flag"), "");
  EXPECT_EQ(q.get("é"), "Я");
  EXPECT_FALSE(q.get("missing"));
  EXPECT_EQ(q.all("t"), (std::vector<std::string_view>{"1", "2", "3"}));
  EXPECT_EQ(q.items().size(), 9u);
}

TEST(QueryString, KeepsMalformedEscapesAndTakesTheFirstOfRepeatedNames) {
  const auto q = Query::parse("a=%zz&b=%4&c=100%&page=2&page=3");
  EXPECT_EQ(q.get("a"), "%zz");
  EXPECT_EQ(q.get("b"), "%4");
  EXPECT_EQ(q.get("c"), "100%");
  EXPECT_EQ(q.get("page"), "2");
  EXPECT_TRUE(Query::parse("").items().empty());
  EXPECT_TRUE(Query::parse("&&&").items().empty());
}

TEST(QueryString, KeepsBytesThatUrlsDoNotAllowAsTheyCame) {
  const auto q = Query::parse("q=a b\"<>\\^`{|}\xC3\xA9&n=%00x&#=1&[k]=v&x=a=b");
  EXPECT_EQ(q.get("q"), "a b\"<>\\^`{|}\xC3\xA9");
  EXPECT_EQ(q.get("n"), std::string_view("\0x", 2));
  EXPECT_EQ(q.get("#"), "1");
  EXPECT_EQ(q.get("[k]"), "v");
  EXPECT_EQ(q.get("x"), "a=b");
  EXPECT_EQ(q.items().size(), 5u);
}

TEST(QueryString, DecodesAnEscapedPlusAsAPlus) {
  EXPECT_EQ(Query::parse("a=1%2B1+2").get("a"), "1+1 2");
  EXPECT_EQ(Query::parse("a+b=%25%41").get("a b"), "%A");
}

std::string first_key(const Result<std::int64_t>& r) { return r ? "" : r.error().fields.at(0).messages.at(0).key; }

TEST(IntegerParam, AppliesTheFallbackAndTheBounds) {
  const IntegerBounds per_page{.fallback = 15, .min = 1, .max = 100};
  EXPECT_EQ(*integer_param(Query::parse(""), "per_page", per_page), 15);
  EXPECT_EQ(*integer_param(Query::parse("per_page="), "per_page", per_page), 15);
  EXPECT_EQ(*integer_param(Query::parse("per_page=1"), "per_page", per_page), 1);
  EXPECT_EQ(*integer_param(Query::parse("per_page=100"), "per_page", per_page), 100);
  EXPECT_EQ(*integer_param(Query::parse("per_page=007"), "per_page", per_page), 7);
  for (const char* bad : {"per_page=0", "per_page=101", "per_page=-1", "per_page=99999999999999999999999"}) {
    auto r = integer_param(Query::parse(bad), "per_page", per_page);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().status, 422);
    EXPECT_EQ(r.error().fields.at(0).field, "per_page");
    EXPECT_EQ(first_key(r), "validation.between") << bad;
  }
  for (const char* bad : {"per_page=1.5", "per_page=abc", "per_page=+1", "per_page=%201", "per_page=1e2", "per_page=-"}) {
    EXPECT_EQ(first_key(integer_param(Query::parse(bad), "per_page", per_page)), "validation.integer") << bad;
  }
}

TEST(IntegerParam, WithoutACeilingOnlyTheMinimumApplies) {
  const IntegerBounds page{.fallback = 0, .min = 0, .max = std::nullopt};
  EXPECT_EQ(*integer_param(Query::parse("page=0"), "page", page), 0);
  EXPECT_EQ(*integer_param(Query::parse("page=9223372036854775807"), "page", page), INT64_MAX);
  EXPECT_EQ(first_key(integer_param(Query::parse("page=-1"), "page", page)), "validation.min");
  EXPECT_EQ(first_key(integer_param(Query::parse("page=9223372036854775808"), "page", page)), "validation.max");
}

TEST(IntegerParam, ReadsTheMostNegativeValue) {
  // -2^63 was refused as out of range even under a minimum of INT64_MIN (found by
  // tests/fuzz/fuzz_params).
  const IntegerBounds any{.fallback = 0, .min = INT64_MIN, .max = INT64_MAX};
  EXPECT_EQ(*parse_integer("n", "-9223372036854775808", any), INT64_MIN);
  EXPECT_EQ(*parse_integer("n", "-9223372036854775807", any), -INT64_MAX);
  EXPECT_EQ(*parse_integer("n", "-0", any), 0);
  EXPECT_EQ(first_key(parse_integer("n", "-9223372036854775809", any)), "validation.between");
}

TEST(IntegerParam, CombinesTheErrorsOfSeveralParameters) {
  const auto q = Query::parse("page=0&per_page=500");
  const auto page = integer_param(q, "page", {.fallback = 1, .min = 1, .max = std::nullopt});
  const auto per_page = integer_param(q, "per_page", {.fallback = 20, .min = 1, .max = 100});
  auto e = combined_error({&page, &per_page});
  ASSERT_TRUE(e);
  ASSERT_EQ(e->fields.size(), 2u);
  EXPECT_EQ(e->fields[0].field, "page");
  EXPECT_EQ(e->fields[1].field, "per_page");
  const auto ok = integer_param(q, "other", {.fallback = 1, .min = 1, .max = 2});
  EXPECT_FALSE(combined_error({&ok}));
}

}  // namespace
}  // namespace mediagen::http
