#include "mediagen/orders/text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace mediagen::orders {
namespace {

// ---- square brackets (spec section 1) ----

TEST(StripBrackets, RemovesBracketedTextBetweenWordsWithOneSpaceLeft) {
  EXPECT_EQ(strip_brackets("Hello [whispers] world"), "Hello world");
  EXPECT_EQ(strip_brackets("Привет [шёпотом] мир"), "Привет мир");
  EXPECT_EQ(strip_brackets("a [x] [y] b"), "a b");
  EXPECT_EQ(strip_brackets("a  [x]   b"), "a  b");
}

TEST(StripBrackets, KeepsParenthesesTagsAndAsterisks) {
  const std::string_view kept = "(parens) <tag> *stars* <break time=\"1.5s\"/> {braces}";
  EXPECT_EQ(strip_brackets(kept), kept);
  EXPECT_EQ(strip_brackets("(quietly) [sighs] *really* <emphasis>now</emphasis>"),
            "(quietly) *really* <emphasis>now</emphasis>");
}

TEST(StripBrackets, TextWithoutBracketsIsUnchanged) {
  for (std::string_view s : {"", " ", "  leading and trailing  ", "line\n\n\nline", "日本語のテキスト。"}) {
    EXPECT_EQ(strip_brackets(s), s);
  }
}

TEST(StripBrackets, GroupAtStartOrEndTakesItsWhitespace) {
  EXPECT_EQ(strip_brackets("[intro] Hello"), "Hello");
  EXPECT_EQ(strip_brackets("Hello [outro]"), "Hello");
  EXPECT_EQ(strip_brackets("Hello [outro]  \n"), "Hello");
  EXPECT_EQ(strip_brackets("  [intro]  Hello"), "Hello");
  EXPECT_EQ(strip_brackets("[a] [b] Hello [c] [d]"), "Hello");
}

TEST(StripBrackets, ClosingPunctuationClosesUp) {
  EXPECT_EQ(strip_brackets("Hello [laughs]. World"), "Hello. World");
  EXPECT_EQ(strip_brackets("Yes [pause], no"), "Yes, no");
  EXPECT_EQ(strip_brackets("(hello [x])"), "(hello)");
  EXPECT_EQ(strip_brackets("你好 [笑]。"), "你好。");
}

TEST(StripBrackets, GluedGroupsJoinTheirNeighbours) {
  EXPECT_EQ(strip_brackets("a[x]b"), "ab");
  EXPECT_EQ(strip_brackets("a [x]b"), "a b");
  EXPECT_EQ(strip_brackets("a[x] b"), "a b");
}

TEST(StripBrackets, LineBreaksSurviveTheMerge) {
  EXPECT_EQ(strip_brackets("one\n\n[note]\ntwo"), "one\n\ntwo");
  EXPECT_EQ(strip_brackets("one [note]\n\ntwo"), "one\n\ntwo");
  EXPECT_EQ(strip_brackets("one\n[note] two"), "one\ntwo");
  EXPECT_EQ(strip_brackets("one\r\n\r\n[x] two"), "one\r\n\r\ntwo");
}

TEST(StripBrackets, NestedGroupsGoAsOne) {
  EXPECT_EQ(strip_brackets("a [b [c] d] e"), "a e");
  EXPECT_EQ(strip_brackets("a [[[deep]]] e"), "a e");
  EXPECT_EQ(strip_brackets("a [b] [c [d]] e"), "a e");
}

TEST(StripBrackets, GroupsMaySpanLinesAndParagraphs) {
  EXPECT_EQ(strip_brackets("a [b\n\nc] d"), "a d");
}

TEST(StripBrackets, UnmatchedBracketsStayAsText) {
  EXPECT_EQ(strip_brackets("a [b"), "a [b");
  EXPECT_EQ(strip_brackets("a ] b"), "a ] b");
  EXPECT_EQ(strip_brackets("a]b[c"), "a]b[c");
  EXPECT_EQ(strip_brackets("[a [b] c"), "[a c");
  EXPECT_EQ(strip_brackets("[a]] b"), "] b");
  EXPECT_EQ(strip_brackets("x [a] [b"), "x [b");
}

TEST(StripBrackets, OnlyBracketsLeaveNothing) {
  EXPECT_EQ(strip_brackets("[only]"), "");
  EXPECT_EQ(strip_brackets("[a][b] [c]\n\n[d]"), "");
  EXPECT_EQ(strip_brackets("[]"), "");
  EXPECT_EQ(strip_brackets("[ ] x"), "x");
}

TEST(StripBrackets, OutputOfValidInputIsValid) {
  std::mt19937 rng(20240611);
  const std::string_view pieces[] = {"[", "]", " ", "\n", "é", "😀", "日", "a", ".", "\xE3\x80\x80"};
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const int n = std::uniform_int_distribution<int>(0, 40)(rng);
    for (int k = 0; k < n; ++k) s += pieces[std::uniform_int_distribution<std::size_t>(0, 9)(rng)];
    const std::string out = strip_brackets(s);
    ASSERT_TRUE(is_valid_utf8(out)) << "input: " << s;
    ASSERT_LE(out.size(), s.size());
    // Idempotent once no matched pair is left.
    if (out.find('[') == std::string::npos || out.find(']') == std::string::npos) {
      ASSERT_EQ(strip_brackets(out), out) << "input: " << s;
    }
  }
}

// ---- UTF-8 ----

TEST(Utf8, AcceptsValidText) {
  for (std::string_view s : {"", "plain ASCII", "\xC2\x80", "\xC3\xA9", "\xDF\xBF", "\xE0\xA0\x80", "\xE2\x82\xAC",
                             "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF0\x9F\x98\x80",
                             "\xF4\x8F\xBF\xBF", "Привет, мир", "日本語", "e\xCC\x81", "👩‍💻 🇺🇦"}) {
    EXPECT_TRUE(is_valid_utf8(s)) << testing::PrintToString(s);
  }
  EXPECT_TRUE(is_valid_utf8(std::string_view("a\0b", 3)));
}

TEST(Utf8, RejectsOverlongForms) {
  for (std::string_view s : {"\xC0\x80", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80",
                             "\xF0\x8F\xBF\xBF"}) {
    EXPECT_FALSE(is_valid_utf8(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8, RejectsSurrogates) {
  for (std::string_view s : {"\xED\xA0\x80", "\xED\xAF\xBF", "\xED\xB0\x80", "\xED\xBF\xBF",
                             "\xED\xA0\xBD\xED\xB8\x80"}) {  // CESU-8 pair of U+1F600
    EXPECT_FALSE(is_valid_utf8(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8, RejectsCodePointsAboveTheLast) {
  for (std::string_view s : {"\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF7\xBF\xBF\xBF"}) {
    EXPECT_FALSE(is_valid_utf8(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8, RejectsFiveAndSixByteForms) {
  for (std::string_view s : {"\xF8\x88\x80\x80\x80", "\xFB\xBF\xBF\xBF\xBF", "\xFC\x84\x80\x80\x80\x80", "\xFE", "\xFF"}) {
    EXPECT_FALSE(is_valid_utf8(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8, RejectsTruncatedSequencesAndStrayBytes) {
  for (std::string_view s : {"\xC3", "\xE2\x82", "\xF0\x9F\x98", "abc\xE2", "abcdefgh\xF0\x9F", "\x80", "a\x80z",
                             "\xBF", "\xC3\x41", "\xE2\x28\xA1", "\xF0\x9F\x98\x28", "12345678\xC3"}) {
    EXPECT_FALSE(is_valid_utf8(s)) << testing::PrintToString(s);
  }
}

// An independent reference: a piece is one valid code point when re-encoding the value its bits
// spell gives the same bytes back and the value is a scalar value.
std::string encode(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

bool reference_valid(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    bool matched = false;
    for (std::size_t len = 1; len <= 4 && i + len <= s.size() && !matched; ++len) {
      const std::string_view piece = s.substr(i, len);
      const auto b0 = static_cast<unsigned char>(piece[0]);
      char32_t v = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
      for (std::size_t k = 1; k < len; ++k) v = (v << 6) | (static_cast<unsigned char>(piece[k]) & 0x3F);
      const bool scalar = v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF);
      if (scalar && encode(v) == piece) {
        i += len;
        matched = true;
      }
    }
    if (!matched) return false;
  }
  return true;
}

TEST(Utf8, AgreesWithAReferenceOnAllTwoByteStrings) {
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const char bytes[2] = {static_cast<char>(a), static_cast<char>(b)};
      const std::string_view s(bytes, 2);
      ASSERT_EQ(is_valid_utf8(s), reference_valid(s)) << a << " " << b;
    }
  }
}

TEST(Utf8, AgreesWithAReferenceOnRandomStrings) {
  std::mt19937 rng(7);
  // Bytes biased towards the interesting ranges: leads, continuations and the edges.
  const unsigned char interesting[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                                       0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof interesting - 1);
  std::uniform_int_distribution<int> length(1, 12);
  for (int i = 0; i < 200000; ++i) {
    std::string s(static_cast<std::size_t>(length(rng)), '\0');
    for (char& c : s) c = static_cast<char>(interesting[pick(rng)]);
    ASSERT_EQ(is_valid_utf8(s), reference_valid(s)) << testing::PrintToString(s);
  }
  // Every scalar value encodes to valid UTF-8 and counts as one code point.
  for (char32_t c = 0; c <= 0x10FFFF; c += (c < 0x1000 ? 1 : 97)) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    const std::string s = encode(c);
    ASSERT_TRUE(is_valid_utf8(s)) << static_cast<std::uint32_t>(c);
    ASSERT_EQ(count_code_points(s), 1U);
    const CodePoint cp = decode_at(s, 0);
    ASSERT_EQ(cp.value, c);
    ASSERT_EQ(cp.length, s.size());
  }
}

TEST(Utf8, CountsCodePointsAndBytes) {
  EXPECT_EQ(count_code_points(""), 0U);
  EXPECT_EQ(count_code_points("hello"), 5U);
  EXPECT_EQ(count_code_points("Привет"), 6U);
  EXPECT_EQ(count_utf8_bytes("Привет"), 12U);
  EXPECT_EQ(count_code_points("日本語"), 3U);
  EXPECT_EQ(count_utf8_bytes("日本語"), 9U);
  EXPECT_EQ(count_code_points("😀😀"), 2U);
  EXPECT_EQ(count_utf8_bytes("😀😀"), 8U);
  EXPECT_EQ(count_code_points("e\xCC\x81"), 2U);  // a combining mark is a code point of its own
  EXPECT_EQ(count_code_points("long ascii run, longer than eight bytes; Привет мир 😀"), 53U);
  EXPECT_EQ(measure("Привет", CapacityUnit::chars), 6U);
  EXPECT_EQ(measure("Привет", CapacityUnit::utf8_bytes), 12U);
}

TEST(Utf8, DecodesAndStepsBack) {
  const std::string_view s = "aé€😀";
  EXPECT_EQ(decode_at(s, 0).value, U'a');
  EXPECT_EQ(decode_at(s, 1).value, U'é');
  EXPECT_EQ(decode_at(s, 3).value, U'€');
  EXPECT_EQ(decode_at(s, 6).value, U'😀');
  EXPECT_EQ(previous_code_point_start(s, s.size()), 6U);
  EXPECT_EQ(previous_code_point_start(s, 6), 3U);
  EXPECT_EQ(previous_code_point_start(s, 3), 1U);
  EXPECT_EQ(previous_code_point_start(s, 1), 0U);
  // Broken input decodes byte by byte and never reads past the end.
  EXPECT_EQ(decode_at("\xE2\x82", 0).length, 1U);
  EXPECT_EQ(previous_code_point_start("\x80\x80\x80\x80", 4), 3U);
}

TEST(TextRules, SpacesAndTrimming) {
  EXPECT_TRUE(is_space(U' '));
  EXPECT_TRUE(is_space(U'\n'));
  EXPECT_TRUE(is_space(U'\u3000'));
  EXPECT_TRUE(is_space(U'\u2029'));
  EXPECT_FALSE(is_space(U'\u00A0'));  // no-break space joins words
  EXPECT_FALSE(is_space(U'\u202F'));
  EXPECT_FALSE(is_space(U'x'));
  EXPECT_EQ(trim_spaces(" \t\nword word\u3000\r\n"), "word word");
  EXPECT_EQ(trim_spaces("   "), "");
  EXPECT_EQ(line_break_weight(U'\u2029'), 2);
  EXPECT_EQ(line_break_weight(U'\n'), 1);
  EXPECT_EQ(line_break_weight(U' '), 0);
}

TEST(TextRules, CapacityUnitNames) {
  EXPECT_EQ(to_string(CapacityUnit::chars), "chars");
  EXPECT_EQ(to_string(CapacityUnit::utf8_bytes), "utf8_bytes");
  EXPECT_EQ(capacity_unit_from_string("chars"), CapacityUnit::chars);
  EXPECT_EQ(capacity_unit_from_string("utf8_bytes"), CapacityUnit::utf8_bytes);
  EXPECT_EQ(capacity_unit_from_string("bytes"), std::nullopt);
}

}  // namespace
}  // namespace mediagen::orders
