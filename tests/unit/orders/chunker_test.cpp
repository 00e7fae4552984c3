#include "mediagen/orders/text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "unit/orders/chunk_texts.hpp"

namespace mediagen::orders {
namespace {

ChunkerOptions chars(std::size_t capacity, GenerationMode mode = GenerationMode::ordinary) {
  return ChunkerOptions{capacity, CapacityUnit::chars, mode};
}

ChunkerOptions bytes(std::size_t capacity, GenerationMode mode = GenerationMode::ordinary) {
  return ChunkerOptions{capacity, CapacityUnit::utf8_bytes, mode};
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

bool is_cjk_terminator(char32_t c) { return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF61; }

bool is_closer(char32_t c) {
  switch (c) {
    case U'"': case U'\'': case U')': case U']': case U'}': case 0x00BB: case 0x2019: case 0x201D: case 0x203A:
    case 0xFF09: case 0xFF3D: case 0xFF5D: case 0xFF02: case 0xFF07: case 0x3009: case 0x300B: case 0x300D:
    case 0x300F: case 0x3011: case 0x3015: case 0x3017: case 0x3019: case 0x301B:
      return true;
    default:
      return false;
  }
}

int breaks_in(std::string_view run) {
  int breaks = 0;
  for (std::size_t i = 0; i < run.size();) {
    const CodePoint cp = decode_at(run, i);
    if (!(cp.value == U'\r' && i + 1 < run.size() && run[i + 1] == '\n')) breaks += line_break_weight(cp.value);
    i += cp.length;
  }
  return breaks;
}

bool all_spaces(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const CodePoint cp = decode_at(s, i);
    if (!is_space(cp.value)) return false;
    i += cp.length;
  }
  return true;
}

// Every property the chunker promises, for one text and one set of options.
void check_plan(std::string_view raw, const ChunkerOptions& options) {
  const ChunkPlan plan = plan_chunks(raw, options);
  const std::string expected_cleaned(trim_spaces(strip_brackets(raw)));
  ASSERT_EQ(plan.cleaned, expected_cleaned);
  ASSERT_EQ(rejoin(plan), plan.cleaned);
  ASSERT_EQ(plan.total_chars, count_code_points(plan.cleaned));
  ASSERT_EQ(plan.chunks.empty(), plan.cleaned.empty());

  const std::size_t capacity = std::max<std::size_t>(1, options.capacity);
  const bool paragraph_mode = options.mode == GenerationMode::paragraph;
  std::size_t billable = 0;
  std::size_t pauses = 0;
  bool caps_ok = true;
  std::size_t offset = 0;                // where the chunk starts in cleaned
  std::vector<std::size_t> starts;       // byte offset of each chunk in cleaned
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    const ChunkText& c = plan.chunks[i];
    SCOPED_TRACE("chunk " + std::to_string(i));
    ASSERT_EQ(c.index, i);
    ASSERT_FALSE(c.text.empty());
    ASSERT_EQ(trim_spaces(c.text), c.text);
    ASSERT_TRUE(is_valid_utf8(c.text)) << "a UTF-8 sequence was split";
    ASSERT_TRUE(all_spaces(c.separator));
    ASSERT_EQ(c.length, count_code_points(c.text));
    ASSERT_EQ(c.billable_length, c.length);
    ASSERT_EQ(c.raw_length, measure(c.text, options.unit));
    if (c.raw_length > capacity) {
      // Only a single code point wider than a byte capacity may exceed it.
      ASSERT_EQ(options.unit, CapacityUnit::utf8_bytes);
      ASSERT_EQ(c.length, 1U);
    }
    ASSERT_EQ(c.pauses, count_pauses(c.text));
    ASSERT_EQ(c.caps_ok, pauses_within_caps(c.pauses, c.length));
    if (i + 1 == plan.chunks.size()) {
      ASSERT_TRUE(c.separator.empty());
    }
    if (paragraph_mode) {
      ASSERT_TRUE(c.paragraph_index.has_value());
      if (i == 0) {
        ASSERT_EQ(*c.paragraph_index, 0U);
      } else {
        const ChunkText& prev = plan.chunks[i - 1];
        const bool new_paragraph = breaks_in(prev.separator) >= 2;
        ASSERT_EQ(*c.paragraph_index, *prev.paragraph_index + (new_paragraph ? 1 : 0));
      }
      // Paragraph breaks never sit inside a chunk in paragraph mode.
      for (std::size_t k = 0; k < c.text.size();) {
        std::size_t e = k;
        while (e < c.text.size() && is_space(decode_at(c.text, e).value)) e += decode_at(c.text, e).length;
        if (e > k) {
          ASSERT_LT(breaks_in(std::string_view(c.text).substr(k, e - k)), 2);
          k = e;
        } else {
          k += decode_at(c.text, k).length;
        }
      }
    } else {
      ASSERT_FALSE(c.paragraph_index.has_value());
    }
    starts.push_back(offset);
    offset += c.text.size() + c.separator.size();
    billable += c.billable_length;
    pauses += c.pauses;
    caps_ok = caps_ok && c.caps_ok;
  }
  ASSERT_EQ(plan.billable_chars, billable);
  ASSERT_EQ(plan.total_pauses, pauses);
  ASSERT_EQ(plan.caps_ok, caps_ok);

  // Cuts without whitespace: after a CJK terminator, or inside a word longer than the capacity.
  // A word is a run without whitespace, whitespace inside a short tag that fits the capacity
  // counting as part of the word (the chunker never cuts a tag).
  const std::string_view cleaned = plan.cleaned;
  std::vector<bool> in_tag(cleaned.size() + 1, false);
  for (std::size_t lt = cleaned.find('<'); lt != std::string_view::npos; lt = cleaned.find('<', lt + 1)) {
    for (std::size_t i = lt + 1; i < std::min(cleaned.size(), lt + 128); ++i) {
      const char ch = cleaned[i];
      if (ch == '<' || ch == '\n' || ch == '\r') break;
      if (ch == '>') {
        if (measure(cleaned.substr(lt, i + 1 - lt), options.unit) <= capacity) {
          std::fill(in_tag.begin() + static_cast<std::ptrdiff_t>(lt), in_tag.begin() + static_cast<std::ptrdiff_t>(i), true);
        }
        break;
      }
    }
  }
  // For every code point boundary: where the word holding it starts and ends (one pass each way).
  std::vector<std::size_t> word_begin(cleaned.size() + 1, 0), word_end(cleaned.size() + 1, cleaned.size());
  {
    std::vector<std::size_t> boundaries;
    for (std::size_t i = 0; i < cleaned.size(); i += decode_at(cleaned, i).length) boundaries.push_back(i);
    boundaries.push_back(cleaned.size());
    auto breaks_word = [&](std::size_t pos) {
      return pos < cleaned.size() && !in_tag[pos] && is_space(decode_at(cleaned, pos).value);
    };
    std::size_t begin = 0;
    for (std::size_t k = 0; k < boundaries.size(); ++k) {
      const std::size_t pos = boundaries[k];
      if (k > 0 && breaks_word(boundaries[k - 1])) begin = pos;
      word_begin[pos] = begin;
    }
    std::size_t end = cleaned.size();
    for (std::size_t k = boundaries.size(); k-- > 0;) {
      const std::size_t pos = boundaries[k];
      if (breaks_word(pos)) end = pos;
      word_end[pos] = end;
    }
  }
  auto word_around = [&](std::size_t pos) { return std::pair{word_begin[pos], word_end[pos]}; };
  for (std::size_t i = 0; i + 1 < plan.chunks.size(); ++i) {
    const ChunkText& c = plan.chunks[i];
    const std::size_t end = starts[i] + c.text.size();
    if (!c.separator.empty()) continue;
    // Skip closers back to the terminator.
    std::size_t k = end;
    char32_t before = 0;
    while (k > starts[i]) {
      k = previous_code_point_start(cleaned, k);
      before = decode_at(cleaned, k).value;
      if (!is_closer(before)) break;
    }
    if (is_cjk_terminator(before)) continue;
    const auto [wb, we] = word_around(end);
    ASSERT_GT(measure(cleaned.substr(wb, we - wb), options.unit), capacity)
        << "a word that fits was split after chunk " << i << ": " << testing::PrintToString(c.text);
  }

  // Greedy packing: a small chunk that is not the last of its paragraph could not take the next
  // word as well.
  for (std::size_t i = 0; i + 1 < plan.chunks.size(); ++i) {
    const ChunkText& c = plan.chunks[i];
    if (c.length >= kComfortableChunkChars || 2 * c.raw_length >= capacity) continue;
    if (paragraph_mode && plan.chunks[i + 1].paragraph_index != c.paragraph_index) continue;
    const auto [wb, we] = word_around(starts[i + 1]);
    (void)wb;
    ASSERT_GT(measure(cleaned.substr(starts[i], we - starts[i]), options.unit), capacity)
        << "chunk " << i << " is small but the next word would have fit: " << testing::PrintToString(c.text);
  }
}

// ---- examples ----

TEST(Chunker, ShortTextIsOneChunk) {
  const ChunkPlan plan = plan_chunks("  Hello, world.  ", chars(5000));
  ASSERT_EQ(plan.chunks.size(), 1U);
  EXPECT_EQ(plan.cleaned, "Hello, world.");
  EXPECT_EQ(plan.chunks[0].text, "Hello, world.");
  EXPECT_EQ(plan.chunks[0].separator, "");
  EXPECT_EQ(plan.chunks[0].length, 13U);
  EXPECT_EQ(plan.chunks[0].raw_length, 13U);
  EXPECT_EQ(plan.chunks[0].billable_length, 13U);
  EXPECT_FALSE(plan.chunks[0].paragraph_index.has_value());
  EXPECT_EQ(plan.total_chars, 13U);
  EXPECT_EQ(plan.billable_chars, 13U);
  EXPECT_TRUE(plan.caps_ok);
}

TEST(Chunker, BracketedTextIsNeitherSpokenNorBilled) {
  const ChunkPlan plan = plan_chunks("Hello [whispers] world (softly) *now*", chars(5000));
  ASSERT_EQ(plan.chunks.size(), 1U);
  EXPECT_EQ(plan.chunks[0].text, "Hello world (softly) *now*");
  EXPECT_EQ(plan.billable_chars, 26U);
}

TEST(Chunker, OnlyBracketsOrSpacesGiveNoChunks) {
  for (std::string_view raw : {"", "   \n\n ", "[only brackets]", "[a] [b]\n\n[c [d]]"}) {
    const ChunkPlan plan = plan_chunks(raw, chars(100));
    EXPECT_TRUE(plan.chunks.empty()) << raw;
    EXPECT_EQ(plan.cleaned, "");
    EXPECT_EQ(plan.total_chars, 0U);
    EXPECT_EQ(plan.billable_chars, 0U);
    EXPECT_TRUE(plan.caps_ok);
  }
}

TEST(Chunker, PrefersParagraphBoundaries) {
  // Two paragraphs of 600 characters (many sentences): capacity 1000 must cut between them,
  // not after the 16th sentence of the second.
  const std::string para = repeat("Short sentence here. ", 28) + "End.";  // 592 characters
  const std::string text = para + "\n\n" + para;
  const ChunkPlan plan = plan_chunks(text, chars(1000));
  ASSERT_EQ(texts_of(plan), (std::vector<std::string>{para, para}));
  EXPECT_EQ(plan.chunks[0].separator, "\n\n");
}

TEST(Chunker, PacksSmallParagraphsTogether) {
  const std::string text = "One.\n\nTwo.\n\nThree.";
  const ChunkPlan plan = plan_chunks(text, chars(5000));
  ASSERT_EQ(plan.chunks.size(), 1U);
  EXPECT_EQ(plan.chunks[0].text, text);
  // A paragraph break inside a chunk is a pause.
  EXPECT_EQ(plan.chunks[0].pauses, 2U);
}

TEST(Chunker, PrefersSentenceBoundariesOverWords) {
  const std::string text = "The first sentence ends here. The second one is longer and does not fit at all.";
  const ChunkPlan plan = plan_chunks(text, chars(50));
  ASSERT_GE(plan.chunks.size(), 2U);
  EXPECT_EQ(plan.chunks[0].text, "The first sentence ends here.");
  EXPECT_EQ(plan.chunks[0].separator, " ");
}

TEST(Chunker, SentenceEndsAfterClosingQuotes) {
  const std::string text = "He said \"stop.\" Then everybody went home quietly and slept.";
  const ChunkPlan plan = plan_chunks(text, chars(30));
  ASSERT_GE(plan.chunks.size(), 2U);
  EXPECT_EQ(plan.chunks[0].text, "He said \"stop.\"");
}

TEST(Chunker, FallsBackToWordsWhenASentenceIsTooLong) {
  const std::string text = "alpha beta gamma delta epsilon zeta eta theta";
  const ChunkPlan plan = plan_chunks(text, chars(12));
  EXPECT_EQ(texts_of(plan), (std::vector<std::string>{"alpha beta", "gamma delta", "epsilon zeta", "eta theta"}));
}

TEST(Chunker, PacksSentencesGreedily) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "This is sentence number " + std::to_string(i) + ". ";
  const ChunkPlan plan = plan_chunks(text, chars(1000));
  for (std::size_t i = 0; i + 1 < plan.chunks.size(); ++i) {
    EXPECT_GT(plan.chunks[i].length, 950U) << i;
    EXPECT_LE(plan.chunks[i].length, 1000U) << i;
    EXPECT_EQ(plan.chunks[i].text.back(), '.');
  }
  check_plan(text, chars(1000));
}

TEST(Chunker, LongParagraphsAreSplitAtSentences) {
  std::string para;
  for (int i = 0; i < 60; ++i) para += "Sentence " + std::to_string(i) + " has a handful of words in it. ";
  const std::string text = para + "\n\n" + para;
  check_plan(text, chars(500));
  const ChunkPlan plan = plan_chunks(text, chars(500));
  for (const ChunkText& c : plan.chunks) EXPECT_EQ(c.text.back(), '.');
}

TEST(Chunker, SplitsAWordOnlyWhenItAloneExceedsTheCapacity) {
  EXPECT_EQ(texts_of(plan_chunks("abcdefghij", chars(5))), (std::vector<std::string>{"abcde", "fghij"}));
  EXPECT_EQ(texts_of(plan_chunks("ab abcdefghij cd", chars(5))),
            (std::vector<std::string>{"ab", "abcde", "fghij", "cd"}));
  EXPECT_EQ(texts_of(plan_chunks("abcd abcd abcd", chars(5))), (std::vector<std::string>{"abcd", "abcd", "abcd"}));
}

TEST(Chunker, CountsCyrillicInBytesUnderUtf8Bytes) {
  // 10 letters = 20 bytes per word + a space.
  const std::string word = "абвгдежзий";
  const std::string text = repeat(word + " ", 400);  // 8,400 bytes, 4,400 code points
  const ChunkPlan plan = plan_chunks(text, bytes(4000));
  ASSERT_EQ(plan.chunks.size(), 3U);
  for (const ChunkText& c : plan.chunks) {
    EXPECT_LE(c.raw_length, 4000U);
    EXPECT_EQ(c.raw_length, 2 * c.length - std::count(c.text.begin(), c.text.end(), ' '));
  }
  EXPECT_EQ(plan.chunks[0].raw_length, 190 * 21 - 1U);  // 190 words fit: 3,989 bytes
  // Under chars the same text is one chunk of capacity 5000.
  EXPECT_EQ(plan_chunks(text, chars(5000)).chunks.size(), 1U);
  check_plan(text, bytes(4000));
}

TEST(Chunker, NeverSplitsAUtf8Sequence) {
  // A run of 3-byte ideographs under an odd byte capacity.
  const std::string text = repeat("日本語", 10);
  const ChunkPlan plan = plan_chunks(text, bytes(8));
  for (const ChunkText& c : plan.chunks) {
    EXPECT_TRUE(is_valid_utf8(c.text));
    EXPECT_EQ(c.raw_length, 6U);
  }
  EXPECT_EQ(rejoin(plan), text);
  // Emoji are four bytes.
  EXPECT_EQ(texts_of(plan_chunks("😀😀😀", bytes(6))), (std::vector<std::string>{"😀", "😀", "😀"}));
  EXPECT_EQ(texts_of(plan_chunks("😀😀😀", bytes(8))), (std::vector<std::string>{"😀😀", "😀"}));
}

TEST(Chunker, ACodePointWiderThanAByteCapacityStandsAlone) {
  const ChunkPlan plan = plan_chunks("a😀b", bytes(2));
  EXPECT_EQ(texts_of(plan), (std::vector<std::string>{"a", "😀", "b"}));
  EXPECT_EQ(plan.chunks[1].raw_length, 4U);
}

TEST(Chunker, KeepsCombiningMarksWithTheirLetter) {
  // "é" as e + U+0301, five times, no spaces: a cut never lands before a combining mark.
  const std::string text = repeat("e\xCC\x81", 5);
  const ChunkPlan plan = plan_chunks(text, chars(3));
  for (const ChunkText& c : plan.chunks) {
    EXPECT_EQ(c.text, "e\xCC\x81");
  }
  EXPECT_EQ(rejoin(plan), text);
  // Emoji with a skin tone and ZWJ sequences stay whole when the word allows it.
  const std::string family = "👨‍👩‍👧";  // 5 code points
  const ChunkPlan emoji = plan_chunks(repeat(family, 3), chars(6));
  for (const ChunkText& c : emoji.chunks) EXPECT_EQ(c.text, family);
}

TEST(Chunker, CutsAfterCjkTerminatorsWithoutSpaces) {
  const ChunkPlan plan = plan_chunks("你好。世界！再见。", chars(4));
  EXPECT_EQ(texts_of(plan), (std::vector<std::string>{"你好。", "世界！", "再见。"}));
  EXPECT_EQ(plan.chunks[0].separator, "");
  const ChunkPlan quoted = plan_chunks("「你好。」世界很大很大", chars(6));
  EXPECT_EQ(quoted.chunks[0].text, "「你好。」");
}

TEST(Chunker, NeverCutsInsideAShortTag) {
  const std::string text = "word word word <break time=\"1s\"/> tail";
  EXPECT_EQ(texts_of(plan_chunks(text, chars(25))),
            (std::vector<std::string>{"word word word", "<break time=\"1s\"/> tail"}));
  // A tag longer than the capacity is text like any other.
  check_plan(text, chars(10));
  // A stray '<' protects nothing.
  EXPECT_EQ(texts_of(plan_chunks("a < b c d e f g", chars(6))), (std::vector<std::string>{"a < b", "c d e", "f g"}));
}

TEST(Chunker, SingleLineBreaksAreSentenceBoundaries) {
  const std::string text = "Chapter one\nIt was a dark and stormy night and the rain fell";
  const ChunkPlan plan = plan_chunks(text, chars(20));
  EXPECT_EQ(plan.chunks[0].text, "Chapter one");
  EXPECT_EQ(plan.chunks[0].separator, "\n");
}

TEST(Chunker, ParagraphModeStartsEveryParagraphInANewChunk) {
  const std::string text = "First paragraph.\n\nSecond paragraph, a bit longer.\r\n\r\nThird.";
  const ChunkPlan plan = plan_chunks(text, chars(5000, GenerationMode::paragraph));
  ASSERT_EQ(plan.chunks.size(), 3U);
  EXPECT_EQ(plan.chunks[0].text, "First paragraph.");
  EXPECT_EQ(plan.chunks[0].separator, "\n\n");
  EXPECT_EQ(plan.chunks[1].separator, "\r\n\r\n");
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(plan.chunks[i].paragraph_index, i);
  EXPECT_EQ(rejoin(plan), text);
  // The same text in ordinary mode is one chunk without paragraph links.
  const ChunkPlan ordinary = plan_chunks(text, chars(5000));
  ASSERT_EQ(ordinary.chunks.size(), 1U);
  EXPECT_FALSE(ordinary.chunks[0].paragraph_index.has_value());
}

TEST(Chunker, ParagraphModeSplitsLongParagraphsUnderOneIndex) {
  const std::string text = "Short one.\n\n" + repeat("A longer paragraph sentence. ", 10) + "\n\nTail.";
  const ChunkPlan plan = plan_chunks(text, chars(100, GenerationMode::paragraph));
  ASSERT_GE(plan.chunks.size(), 5U);
  EXPECT_EQ(plan.chunks.front().paragraph_index, 0U);
  EXPECT_EQ(plan.chunks.back().paragraph_index, 2U);
  for (std::size_t i = 1; i + 1 < plan.chunks.size(); ++i) EXPECT_EQ(plan.chunks[i].paragraph_index, 1U);
  check_plan(text, chars(100, GenerationMode::paragraph));
}

TEST(Chunker, ParagraphSeparatorU2029) {
  const std::string text = "One.\u2029Two.";
  const ChunkPlan plan = plan_chunks(text, chars(100, GenerationMode::paragraph));
  ASSERT_EQ(plan.chunks.size(), 2U);
  EXPECT_EQ(plan.chunks[1].paragraph_index, 1U);
}

TEST(Chunker, ZeroCapacityIsTakenAsOne) {
  const ChunkPlan plan = plan_chunks("ab", chars(0));
  EXPECT_EQ(texts_of(plan), (std::vector<std::string>{"a", "b"}));
}

TEST(Chunker, ModeNames) {
  EXPECT_EQ(to_string(GenerationMode::ordinary), "ordinary");
  EXPECT_EQ(to_string(GenerationMode::paragraph), "paragraph");
  EXPECT_EQ(generation_mode_from_string("paragraph"), GenerationMode::paragraph);
  EXPECT_EQ(generation_mode_from_string("ordinary"), GenerationMode::ordinary);
  EXPECT_EQ(generation_mode_from_string("Paragraph"), std::nullopt);
}

// ---- pauses ----

TEST(Pauses, WhatCountsAsAPause) {
  EXPECT_EQ(count_pauses("No pause here. Or here!"), 0U);
  EXPECT_EQ(count_pauses("Wait... what"), 1U);
  EXPECT_EQ(count_pauses("Wait.. what"), 1U);
  EXPECT_EQ(count_pauses("Wait…… what…"), 2U);
  EXPECT_EQ(count_pauses("Wait.…. what"), 1U);
  EXPECT_EQ(count_pauses("a <break time=\"1s\"/> b <BREAK/> c <break> d <breakfast>"), 3U);
  EXPECT_EQ(count_pauses("one\n\ntwo\nthree \n \n four"), 2U);
  EXPECT_EQ(count_pauses("one\u2029two"), 1U);
  EXPECT_EQ(count_pauses("..."), 1U);
  EXPECT_EQ(count_pauses(""), 0U);
}

TEST(Pauses, Caps) {
  EXPECT_TRUE(pauses_within_caps(0, 0));
  EXPECT_TRUE(pauses_within_caps(1, 3));     // one pause is always allowed
  EXPECT_FALSE(pauses_within_caps(2, 99));   // one per 50 characters
  EXPECT_TRUE(pauses_within_caps(2, 100));
  EXPECT_TRUE(pauses_within_caps(20, 5000));
  EXPECT_FALSE(pauses_within_caps(21, 5000));  // at most 20 per chunk
}

TEST(Pauses, OverTheCapsMarksThePlanButNeverFails) {
  const std::string dense = "Wait... no... yes... maybe... stop.";  // 4 pauses in 35 characters
  const ChunkPlan plan = plan_chunks(dense, chars(5000));
  ASSERT_EQ(plan.chunks.size(), 1U);
  EXPECT_EQ(plan.chunks[0].pauses, 4U);
  EXPECT_FALSE(plan.chunks[0].caps_ok);
  EXPECT_FALSE(plan.caps_ok);
  EXPECT_EQ(plan.total_pauses, 4U);

  std::string many;
  for (int i = 0; i < 25; ++i) many += repeat("word ", 20) + "<break time=\"1s\"/> ";
  const ChunkPlan long_plan = plan_chunks(many, chars(5000));
  ASSERT_EQ(long_plan.chunks.size(), 1U);
  EXPECT_EQ(long_plan.chunks[0].pauses, 25U);
  EXPECT_FALSE(long_plan.caps_ok);
  // Split into smaller chunks the same pauses are within the caps.
  const ChunkPlan split = plan_chunks(many, chars(1000));
  EXPECT_TRUE(split.caps_ok);
  EXPECT_EQ(split.total_pauses, 25U);
}

TEST(Pauses, ParagraphBreaksBetweenChunksAreNotPauses) {
  const ChunkPlan plan = plan_chunks("One.\n\nTwo.\n\nThree.", chars(5000, GenerationMode::paragraph));
  EXPECT_EQ(plan.total_pauses, 0U);
}

// ---- the /text fields (spec 2.4) ----

TEST(TextFields, FreshChunk) {
  const ChunkPlan plan = plan_chunks("Привет, мир [шёпот] и всё.", bytes(4000));
  ASSERT_EQ(plan.chunks.size(), 1U);
  const ChunkTextFields f = text_fields(plan.chunks[0], bytes(4000));
  EXPECT_EQ(f.length, 18U);
  EXPECT_EQ(f.original_text_length, 18U);
  EXPECT_EQ(f.billable_length, 18U);
  EXPECT_EQ(f.free_length, 18U);
  EXPECT_EQ(f.max_billable_length, 22U);  // ceil(18 * 1.2) = 21.6 -> 22
  EXPECT_EQ(f.max_raw_length, 4000U);
  EXPECT_FALSE(f.surcharge_applies);
  EXPECT_EQ(f.capacity_unit, CapacityUnit::utf8_bytes);
  EXPECT_EQ(f.raw_length, 31U);  // 13 Cyrillic letters x 2 + 5 ASCII
  EXPECT_TRUE(within_limits(f));
}

TEST(TextFields, MaxBillableFormula) {
  EXPECT_EQ(max_billable_for(0, 5000), 0U);
  EXPECT_EQ(max_billable_for(10, 5000), 12U);
  EXPECT_EQ(max_billable_for(11, 5000), 14U);   // 13.2 -> 14
  EXPECT_EQ(max_billable_for(4000, 5000), 4800U);
  EXPECT_EQ(max_billable_for(4900, 5000), 5000U);  // the capacity caps the surcharge
  EXPECT_EQ(max_billable_for(5000, 5000), 5000U);
  EXPECT_EQ(max_billable_for(3, 2), 3U);           // never below the paid volume
}

TEST(TextFields, RevisedText) {
  ChunkText chunk;
  chunk.length = chunk.billable_length = chunk.raw_length = 100;
  const ChunkTextFields fresh = text_fields(chunk, chars(5000));
  EXPECT_EQ(fresh.max_billable_length, 120U);

  const ChunkTextFields shorter = revise_text_fields(fresh, repeat("a", 90));
  EXPECT_EQ(shorter.billable_length, 90U);
  EXPECT_EQ(shorter.free_length, 100U);
  EXPECT_EQ(shorter.original_text_length, 100U);
  EXPECT_FALSE(shorter.surcharge_applies);
  EXPECT_TRUE(within_limits(shorter));

  const ChunkTextFields longer = revise_text_fields(fresh, repeat("a", 110));
  EXPECT_TRUE(longer.surcharge_applies);
  EXPECT_TRUE(within_limits(longer));

  const ChunkTextFields too_long = revise_text_fields(fresh, repeat("a", 121));
  EXPECT_FALSE(within_limits(too_long));

  // Bytes: the raw limit is the capacity in bytes, whatever the billing says.
  ChunkText cyr;
  cyr.length = cyr.billable_length = 1900;
  cyr.raw_length = 3800;
  const ChunkTextFields b = text_fields(cyr, bytes(4000));
  const ChunkTextFields over_raw = revise_text_fields(b, repeat("я", 2001));
  EXPECT_EQ(over_raw.raw_length, 4002U);
  EXPECT_LE(over_raw.billable_length, over_raw.max_billable_length);
  EXPECT_FALSE(within_limits(over_raw));
}

// ---- properties over random and adversarial text ----

// Pieces a random text is made of, each with a weight.
struct Piece {
  std::string_view text;
  int weight;
};

const std::vector<Piece>& pieces() {
  static const std::vector<Piece> all = {
      {"word", 20}, {"a", 5}, {"speech", 8}, {"extraordinarily", 3}, {"Привет", 10}, {"мир", 8},
      {"достопримечательность", 3}, {"日本語", 6}, {"你好", 6}, {"。", 4}, {"！", 2}, {"？", 1}, {"「", 1},
      {"」", 1}, {"😀", 4}, {"👍🏽", 2}, {"👨‍👩‍👧", 1}, {"🇺🇦", 1}, {"e\xCC\x81", 3}, {"\xCC\x81", 1},
      {"\xE2\x80\x8D", 1}, {" ", 60}, {"  ", 4}, {"\t", 1}, {"\n", 6}, {"\n\n", 5}, {"\r\n\r\n", 1},
      {" \n \n ", 1}, {"\xE3\x80\x80", 2}, {"\xE2\x80\xA9", 1}, {"\xC2\xA0", 2}, {".", 10}, {". ", 12},
      {"! ", 3}, {"? ", 3}, {"...", 3}, {"…", 3}, {",", 6}, {"\"", 2}, {"'", 1}, {")", 1}, {"(", 1},
      {"[", 5}, {"]", 5}, {"[note]", 3}, {"[a [b] c]", 1}, {"<break time=\"1s\"/>", 2}, {"<tag>", 1},
      {"*stars*", 1}, {"-", 2}, {"0123456789", 2},
  };
  return all;
}

std::string random_text(std::mt19937& rng, std::size_t target_bytes) {
  const auto& all = pieces();
  std::vector<int> weights;
  for (const Piece& p : all) weights.push_back(p.weight);
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  std::string out;
  while (out.size() < target_bytes) out += all[pick(rng)].text;
  return out;
}

ChunkerOptions random_options(std::mt19937& rng) {
  ChunkerOptions o;
  const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
  if (kind == 0) {
    o.capacity = std::uniform_int_distribution<std::size_t>(1, 12)(rng);
  } else if (kind == 1) {
    o.capacity = std::uniform_int_distribution<std::size_t>(13, 200)(rng);
  } else {
    o.capacity = std::uniform_int_distribution<std::size_t>(201, 5000)(rng);
  }
  o.unit = std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? CapacityUnit::chars : CapacityUnit::utf8_bytes;
  o.mode = std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? GenerationMode::ordinary : GenerationMode::paragraph;
  return o;
}

std::string describe(std::uint32_t seed, const ChunkerOptions& o) {
  std::ostringstream s;
  s << "seed " << seed << ", capacity " << o.capacity << " " << to_string(o.unit) << ", " << to_string(o.mode);
  return s.str();
}

// Base seed: fixed so a failure replays; MEDIAGEN_CHUNKER_SEED explores other ones.
std::uint32_t base_seed() {
  if (const char* env = std::getenv("MEDIAGEN_CHUNKER_SEED")) return static_cast<std::uint32_t>(std::stoul(env));
  return 1234567U;
}

TEST(ChunkerProperties, RandomMixedText) {
  for (std::uint32_t i = 0; i < 1500; ++i) {
    const std::uint32_t seed = base_seed() + i;
    std::mt19937 rng(seed);
    const ChunkerOptions o = random_options(rng);
    const std::size_t size = std::uniform_int_distribution<std::size_t>(0, i % 10 == 0 ? 20000 : 2000)(rng);
    const std::string text = random_text(rng, size);
    SCOPED_TRACE(describe(seed, o));
    check_plan(text, o);
    if (HasFatalFailure()) return;
  }
}

TEST(ChunkerProperties, EveryCapacityFromOneUpOnOneText) {
  std::mt19937 rng(base_seed());
  const std::string text = random_text(rng, 6000);
  for (std::size_t capacity = 1; capacity <= 5000; capacity += (capacity < 64 ? 1 : capacity < 600 ? 7 : 97)) {
    for (const CapacityUnit unit : {CapacityUnit::chars, CapacityUnit::utf8_bytes}) {
      for (const GenerationMode mode : {GenerationMode::ordinary, GenerationMode::paragraph}) {
        const ChunkerOptions o{capacity, unit, mode};
        SCOPED_TRACE(describe(base_seed(), o));
        check_plan(text, o);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ChunkerProperties, SingleScripts) {
  const std::vector<std::pair<std::string, std::vector<std::string_view>>> scripts = {
      {"ascii", {"lorem", "ipsum", "dolor", "sit", "amet", " ", " ", " ", ". ", ", ", "\n\n"}},
      {"cyrillic", {"съешь", "же", "ещё", "этих", "мягких", "французских", "булок", " ", " ", " ", ". ", "\n\n"}},
      {"cjk", {"日本語", "の", "テキスト", "中文", "文本", "。", "、", "！", "？", "」", "「"}},
      {"emoji", {"😀", "👍🏽", "👨‍👩‍👧", "🇺🇦", "🎉", " "}},
      {"combining", {"e\xCC\x81", "a\xCC\x8A", "n\xCC\x83", "\xCC\x81", "\xCC\x88\xCC\x81", " "}},
  };
  for (std::uint32_t i = 0; i < 400; ++i) {
    const std::uint32_t seed = base_seed() + 100000 + i;
    std::mt19937 rng(seed);
    const auto& [name, alphabet] = scripts[i % scripts.size()];
    std::string text;
    const std::size_t size = std::uniform_int_distribution<std::size_t>(1, 4000)(rng);
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
    while (text.size() < size) text += alphabet[pick(rng)];
    const ChunkerOptions o = random_options(rng);
    SCOPED_TRACE(name + ", " + describe(seed, o));
    check_plan(text, o);
    if (HasFatalFailure()) return;
  }
}

TEST(ChunkerProperties, NoSpacesAtAll) {
  std::mt19937 rng(base_seed() + 7);
  const std::vector<std::string> runs = {repeat("x", 12345), repeat("щ", 5000), repeat("語", 3000),
                                         repeat("😀", 2000), repeat("e\xCC\x81", 2000), repeat("👨‍👩‍👧", 300)};
  for (const std::string& run : runs) {
    for (int k = 0; k < 12; ++k) {
      const ChunkerOptions o = random_options(rng);
      SCOPED_TRACE(describe(base_seed() + 7, o) + ", run of " + std::to_string(run.size()) + " bytes");
      check_plan(run, o);
      if (HasFatalFailure()) return;
    }
  }
  // The long ASCII word under 5000 chars: 5000 + 5000 + 2345.
  const ChunkPlan plan = plan_chunks(runs[0], chars(5000));
  ASSERT_EQ(plan.chunks.size(), 3U);
  EXPECT_EQ(plan.chunks[2].length, 2345U);
}

TEST(ChunkerProperties, BracketTorture) {
  std::mt19937 rng(base_seed() + 11);
  const std::vector<std::string_view> alphabet = {"[", "]", "[", "]", "[x]", "word", " ", "\n\n", "Привет", "."};
  for (int i = 0; i < 500; ++i) {
    std::string text;
    const int n = std::uniform_int_distribution<int>(0, 200)(rng);
    for (int k = 0; k < n; ++k) text += alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
    const ChunkerOptions o = random_options(rng);
    SCOPED_TRACE(describe(base_seed() + 11, o) + " text " + testing::PrintToString(text));
    check_plan(text, o);
    if (HasFatalFailure()) return;
  }
  // Only brackets, nested and unbalanced.
  check_plan(repeat("[[x] [y]] ", 1000), chars(100));
  EXPECT_TRUE(plan_chunks(repeat("[[x] [y]] ", 1000), chars(100)).chunks.empty());
  const ChunkPlan open = plan_chunks(repeat("[", 300), chars(100));
  EXPECT_EQ(open.chunks.size(), 3U);  // unmatched brackets are text, and a long "word"
}

TEST(ChunkerProperties, FiftyThousandCharacters) {
  std::mt19937 rng(base_seed() + 50000);
  std::string text;
  while (count_code_points(text) < 50000) text += random_text(rng, 1000);
  for (const ChunkerOptions& o : {chars(5000), bytes(4000), chars(3000, GenerationMode::paragraph),
                                  bytes(4000, GenerationMode::paragraph), chars(2000), chars(37)}) {
    SCOPED_TRACE(describe(base_seed() + 50000, o));
    check_plan(text, o);
    if (HasFatalFailure()) return;
  }
  // Cyrillic prose under utf8_bytes: chunks fill the 4000 bytes and stay big.
  std::string prose;
  const std::vector<std::string_view> words = {"съешь", "же", "ещё", "этих", "мягких", "французских", "булок", "да",
                                               "выпей", "чаю"};
  std::size_t w = 0;
  while (count_code_points(prose) < 50000) {
    prose += words[w++ % words.size()];
    prose += (w % 11 == 0) ? ". " : (w % 97 == 0) ? ".\n\n" : " ";
  }
  check_plan(prose, bytes(4000));
  const ChunkPlan plan = plan_chunks(prose, bytes(4000));
  for (std::size_t i = 0; i + 1 < plan.chunks.size(); ++i) {
    EXPECT_GE(plan.chunks[i].raw_length, 2000U) << i;
    EXPECT_LE(plan.chunks[i].raw_length, 4000U) << i;
  }
}

}  // namespace
}  // namespace mediagen::orders
