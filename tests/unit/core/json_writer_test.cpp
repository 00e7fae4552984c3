#include "mediagen/core/json_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace mediagen {
namespace {

TEST(JsonWriter, WritesAnEmptyObjectAndArray) {
  EXPECT_EQ(JsonWriter().begin_object().end_object().take(), "{}");
  EXPECT_EQ(JsonWriter().begin_array().end_array().take(), "[]");
}

TEST(JsonWriter, SeparatesFieldsWithCommas) {
  JsonWriter w;
  w.begin_object().field("a", std::int64_t{1}).field("b", true).field("c", "x").key("d").null().end_object();
  EXPECT_EQ(w.take(), R"({"a":1,"b":true,"c":"x","d":null})");
}

TEST(JsonWriter, NestsObjectsAndArrays) {
  JsonWriter w;
  w.begin_object().key("o").begin_object().field("x", std::int64_t{1}).end_object();
  w.key("a").begin_array().value(std::int64_t{1}).begin_array().end_array().begin_object().end_object().end_array();
  w.key("e").begin_array().end_array().field("z", false).end_object();
  const std::string text = w.take();
  EXPECT_EQ(text, R"({"o":{"x":1},"a":[1,[],{}],"e":[],"z":false})");
  EXPECT_TRUE(nlohmann::json::accept(text));
}

TEST(JsonWriter, WritesOptionalsAsNullWhenEmpty) {
  JsonWriter w;
  w.begin_object()
      .field("set", std::optional<std::int64_t>{5})
      .field("unset", std::optional<std::int64_t>{})
      .end_object();
  EXPECT_EQ(w.take(), R"({"set":5,"unset":null})");
}

TEST(JsonWriter, WritesAListOfStrings) {
  JsonWriter w;
  w.begin_object().field("scopes", std::vector<std::string>{"*", "orders.read"}).field("none", std::vector<std::string>{});
  w.end_object();
  EXPECT_EQ(w.take(), R"({"scopes":["*","orders.read"],"none":[]})");
}

TEST(JsonWriter, EscapesStringValues) {
  JsonWriter w;
  w.begin_object().field("s", std::string_view("q\"b\\n\n\x01")).end_object();
  const std::string text = w.take();
  EXPECT_EQ(nlohmann::json::parse(text)["s"], "q\"b\\n\n\x01");
}

TEST(JsonWriter, WritesDoublesInTheShortestExactForm) {
  auto one = [](double v) {
    JsonWriter w;
    w.value(v);
    return w.take();
  };
  EXPECT_EQ(one(1500.0), "1500");
  EXPECT_EQ(one(0.1), "0.1");
  EXPECT_EQ(one(15.05), "15.05");
  EXPECT_EQ(one(-2.5), "-2.5");
  EXPECT_EQ(nlohmann::json::parse(one(1e300)).get<double>(), 1e300);
}

TEST(JsonWriter, WritesNonFiniteDoublesAsNull) {
  for (double v : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    JsonWriter w;
    w.begin_array().value(v).end_array();
    EXPECT_EQ(w.take(), "[null]");
  }
}

TEST(JsonWriter, WritesExtremeIntegers) {
  JsonWriter w;
  w.begin_array()
      .value(std::numeric_limits<std::int64_t>::min())
      .value(std::numeric_limits<std::int64_t>::max())
      .end_array();
  EXPECT_EQ(w.take(), "[-9223372036854775808,9223372036854775807]");
}

TEST(JsonWriter, InsertsRawJson) {
  JsonWriter w;
  w.begin_object().key("data").raw(R"({"x":[1]})").field("n", std::int64_t{2}).end_object();
  EXPECT_EQ(w.take(), R"({"data":{"x":[1]},"n":2})");
}

TEST(AppendJsonString, EscapesQuotesBackslashesAndControlCharacters) {
  std::string out;
  append_json_string(out, std::string("a\"b\\c\nd\re\tf\x01g\x1f", 14));
  EXPECT_EQ(out, R"("a\"b\\c\nd\re\tf\u0001g\u001f")");
  EXPECT_EQ(nlohmann::json::parse(out), std::string("a\"b\\c\nd\re\tf\x01g\x1f", 14));
}

TEST(AppendJsonString, EscapesTheNulCharacter) {
  std::string out;
  append_json_string(out, std::string("a\0b", 3));
  EXPECT_EQ(out, R"("a\u0000b")");
}

TEST(AppendJsonString, KeepsUtf8AsIs) {
  std::string out = "prefix";
  append_json_string(out, "Готово ✓");
  EXPECT_EQ(out, "prefix\"Готово ✓\"");
}

}  // namespace
}  // namespace mediagen
