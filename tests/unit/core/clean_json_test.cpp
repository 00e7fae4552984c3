// JSON from outside: parsed without exceptions and without the NUL truncation of nlohmann (a raw
// NUL after a complete value ends its input), and checked for control characters anywhere.
#include "mediagen/core/clean_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace mediagen {
namespace {

using namespace std::string_literals;

TEST(CleanJson, ARawNulIsNeverTakenForTheEndOfTheInput) {
  // What the fuzzer found: nlohmann accepts this as {"a":1}.
  const std::string text = "{\"a\":1}\0{\"b\":2}"s;
  EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded());
  EXPECT_TRUE(parse_untrusted_json(text).is_discarded());
  EXPECT_TRUE(parse_untrusted_json("\0"s).is_discarded());
  EXPECT_TRUE(parse_untrusted_json("{\"a\":\"x\0y\"}"s).is_discarded());
  EXPECT_TRUE(parse_untrusted_json("{\"a\":").is_discarded());
  EXPECT_EQ(parse_untrusted_json(R"({"a":"\u0000"})").at("a"), "\0"s);  // escaped: parsed, then refused
}

TEST(CleanJson, NamesTheFirstStringWithAControlCharacter) {
  EXPECT_EQ(unclean_json_field(nlohmann::json::parse(R"({"a":{"b":["ok","\u0007"]}})")), "a.b.1");
  EXPECT_EQ(unclean_json_field(nlohmann::json::parse(R"({"\u0000":1})")), "body");
  EXPECT_EQ(unclean_json_field(nlohmann::json::parse(R"({"ok":"tab\tline\nreturn\r"})")), std::nullopt);
}

}  // namespace
}  // namespace mediagen
