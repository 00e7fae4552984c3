// UTF-8 helpers: the one decoder of sequence starts, the cut on a code point boundary, and the
// clean-text rule that every text field from outside follows.
#include "mediagen/core/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

#include "mediagen/core/json_text.hpp"
#include "mediagen/core/json_writer.hpp"

namespace mediagen {
namespace {

TEST(Utf8, SequenceLengthOfEachForm) {
  EXPECT_EQ(utf8_sequence_length("a"), 1u);
  EXPECT_EQ(utf8_sequence_length("\xC3\xA9"), 2u);          // é
  EXPECT_EQ(utf8_sequence_length("\xE2\x82\xAC"), 3u);      // €
  EXPECT_EQ(utf8_sequence_length("\xF0\x9F\x98\x80"), 4u);  // 😀
  EXPECT_EQ(utf8_sequence_length("\xC3"), 0u);              // truncated
  EXPECT_EQ(utf8_sequence_length("\xC0\xAF"), 0u);          // overlong
  EXPECT_EQ(utf8_sequence_length("\xED\xA0\x80"), 0u);      // surrogate
  EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\x80"), 0u);              // stray continuation
  EXPECT_EQ(utf8_sequence_length("\xF8\x88\x80\x80\x80"), 0u);  // 5-byte form
  EXPECT_EQ(utf8_sequence_length(""), 0u);
}

TEST(Utf8, APrefixNeverEndsInsideACodePoint) {
  for (const std::string ch : {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"}) {
    const std::string text = std::string(199, 'a') + ch;  // the character straddles byte 200
    const auto cut = utf8_prefix(text, 200);
    EXPECT_EQ(cut, std::string(199, 'a')) << ch.size();
    EXPECT_TRUE(is_valid_utf8(cut));
    EXPECT_EQ(utf8_prefix(text, text.size()), text);
  }
  const std::string euros = "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC";
  for (std::size_t n = 0; n <= euros.size(); ++n) {
    const auto cut = utf8_prefix(euros, n);
    EXPECT_EQ(cut.size(), n / 3 * 3) << n;
  }
}

TEST(Utf8, CleanTextRefusesControlsButTabAndLineBreaks) {
  EXPECT_TRUE(is_clean_text("Hello,\tworld.\r\nNext line: \xC3\xA9\xE2\x82\xAC"));
  EXPECT_TRUE(is_clean_text(""));
  EXPECT_FALSE(is_clean_text(std::string("nul \0 inside", 12)));
  EXPECT_FALSE(is_clean_text("bell \a"));
  EXPECT_FALSE(is_clean_text("escape \x1b[31m"));
  EXPECT_FALSE(is_clean_text("delete \x7f"));
  EXPECT_FALSE(is_clean_text("bad \xFF byte"));
}

TEST(Utf8, JsonStringsReplaceInvalidBytesAndStayValidJson) {
  const std::string bad = std::string(199, 'a') + "\xC3";  // the cut that once ended the process
  std::string out;
  append_json_string(out, bad);
  ASSERT_TRUE(nlohmann::json::accept(out)) << out;
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), std::string(199, 'a') + "\xEF\xBF\xBD");
  out.clear();
  append_json_string(out, "ok \xC3\xA9 \xF0\x9F\x98\x80 \xED\xA0\x80 \x80 end");
  ASSERT_TRUE(nlohmann::json::accept(out)) << out;
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(),
            "ok \xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD end");
}

TEST(Utf8, JsonTextNeverThrowsOnInvalidUtf8) {
  nlohmann::json j = {{"channel", std::string(199, 'a') + "\xC3"}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // why to_json_text exists
  const std::string text = to_json_text(j);
  EXPECT_TRUE(nlohmann::json::accept(text));
}

}  // namespace
}  // namespace mediagen
