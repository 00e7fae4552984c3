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

TEST(Utf8, DecodesEachFormToItsCodePointAndLength) {
  const auto check = [](std::string_view text, char32_t value, std::size_t length) {
    const auto cp = decode_utf8(text);
    ASSERT_TRUE(cp) << text;
    EXPECT_EQ(cp->value, value) << text;
    EXPECT_EQ(cp->length, length) << text;
  };
  check("a", U'a', 1);
  check(std::string_view("\0", 1), 0, 1);
  check("\x7F", 0x7F, 1);
  check("\xC2\x80", 0x80, 2);
  check("\xC3\xA9", U'é', 2);
  check("\xDF\xBF", 0x7FF, 2);
  check("\xE0\xA0\x80", 0x800, 3);
  check("\xE2\x82\xAC", U'€', 3);
  check("\xED\x9F\xBF", 0xD7FF, 3);
  check("\xEF\xBF\xBF", 0xFFFF, 3);
  check("\xF0\x90\x80\x80", 0x10000, 4);
  check("\xF0\x9F\x98\x80", U'😀', 4);
  check("\xF4\x8F\xBF\xBF", 0x10FFFF, 4);
}

TEST(Utf8, DecodesOnlyTheFirstCodePoint) {
  const auto cp = decode_utf8("\xC3\xA9t\xC3\xA9");
  ASSERT_TRUE(cp);
  EXPECT_EQ(cp->value, U'é');
  EXPECT_EQ(cp->length, 2u);
}

TEST(Utf8, DecodesNothingWhereNoValidSequenceStarts) {
  for (const std::string_view bad : {"", "\xC3", "\xC0\xAF", "\xC1\xBF", "\xE0\x9F\xBF", "\xED\xA0\x80",
                                     "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\x80", "\xBF", "\xC3(",
                                     "\xE2\x82", "\xF5\x80\x80\x80", "\xF8\x88\x80\x80\x80", "\xFF"}) {
    EXPECT_FALSE(decode_utf8(bad)) << testing::PrintToString(std::string(bad));
  }
}

TEST(Utf8, CountsCodePointsAsTheBytesThatAreNotContinuations) {
  // Eight bytes are counted at once: a 4-byte sequence at every offset of such a block, and a
  // tail shorter than a block.
  for (std::size_t before = 0; before <= 17; ++before) {
    const std::string text = std::string(before, 'a') + "\xF0\x9F\x98\x80" + std::string(before % 5, 'b');
    EXPECT_EQ(count_code_points(text), before + 1 + before % 5) << before;
  }
  // Not UTF-8: every byte but a continuation byte counts once.
  EXPECT_EQ(count_code_points("\x80\x80\xC3"), 1u);
  EXPECT_EQ(count_code_points("\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xBF"), 8u);
}

TEST(Utf8, TellsContinuationBytesFromTheRest) {
  EXPECT_TRUE(is_utf8_continuation(0x80));
  EXPECT_TRUE(is_utf8_continuation(0xBF));
  EXPECT_FALSE(is_utf8_continuation(0x7F));
  EXPECT_FALSE(is_utf8_continuation(0xC0));
  EXPECT_FALSE(is_utf8_continuation('a'));
}

}  // namespace
}  // namespace mediagen
