// The lead chunk of a streamed speech answer (text.hpp): the first chunk ends at the first
// sentence boundary past kLeadMinChars, inside its smaller window; the rest is packed as before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mediagen/orders/text.hpp"
#include "unit/orders/chunk_texts.hpp"

namespace mediagen::orders {
namespace {

ChunkerOptions with_lead(std::size_t capacity, std::size_t lead,
                         CapacityUnit unit = CapacityUnit::chars,
                         GenerationMode mode = GenerationMode::ordinary) {
  return ChunkerOptions{.capacity = capacity, .unit = unit, .mode = mode, .lead_capacity = lead};
}

std::string sentences(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ' ';
    out += "Sentence number " + std::to_string(i) + " is here to be spoken aloud.";
  }
  return out;
}

TEST(ChunkerLead, TheFirstChunkIsTheFirstSentence) {
  const std::string text = sentences(40);
  const ChunkPlan plan = plan_chunks(text, with_lead(3000, 250));
  ASSERT_GE(plan.chunks.size(), 2u);
  EXPECT_EQ(plan.chunks[0].text, "Sentence number 0 is here to be spoken aloud.");
  EXPECT_EQ(plan.chunks[0].separator, " ");
  // The rest is one chunk as the capacity allows.
  EXPECT_EQ(plan.chunks.size(), 2u);
  EXPECT_EQ(rejoin(plan), plan.cleaned);
}

TEST(ChunkerLead, ASentenceShorterThanTheMinimumJoinsTheNext) {
  const std::string text = "Hi. " + sentences(10);
  const ChunkPlan plan = plan_chunks(text, with_lead(3000, 250));
  ASSERT_GE(plan.chunks.size(), 2u);
  EXPECT_EQ(plan.chunks[0].text, "Hi. Sentence number 0 is here to be spoken aloud.");
  EXPECT_GE(plan.chunks[0].length, kLeadMinChars);
}

TEST(ChunkerLead, NoSentenceInTheWindowPacksTheWindowAtAWord) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "word ";
  const ChunkPlan plan = plan_chunks(text, with_lead(3000, 100));
  ASSERT_EQ(plan.chunks.size(), 2u);
  EXPECT_LE(plan.chunks[0].raw_length, 100u);
  EXPECT_GE(plan.chunks[0].raw_length, 95u);
  EXPECT_EQ(plan.chunks[0].text.back(), 'd');
  EXPECT_EQ(rejoin(plan), plan.cleaned);
}

TEST(ChunkerLead, OnlyTheFirstChunkIsALeadChunk) {
  const std::string text = sentences(200);  // about 9,600 characters
  const ChunkPlan lead = plan_chunks(text, with_lead(3000, 250));
  const ChunkPlan plain = plan_chunks(text, ChunkerOptions{.capacity = 3000});
  ASSERT_GE(lead.chunks.size(), 4u);
  EXPECT_LT(lead.chunks[0].length, 60u);
  for (std::size_t i = 1; i + 1 < lead.chunks.size(); ++i) EXPECT_GE(lead.chunks[i].length, 1500u) << i;
  // Every chunk but the lead is as the plain plan packs the text after the lead.
  const ChunkPlan rest = plan_chunks(text.substr(lead.chunks[0].text.size() + 1), ChunkerOptions{.capacity = 3000});
  ASSERT_EQ(rest.chunks.size() + 1, lead.chunks.size());
  for (std::size_t i = 0; i < rest.chunks.size(); ++i) EXPECT_EQ(rest.chunks[i].text, lead.chunks[i + 1].text);
  // Each separator here is one space, left out of the bill: the lead's cut bills one less.
  EXPECT_EQ(lead.billable_chars + lead.chunks.size() - 1, lead.total_chars);
  EXPECT_EQ(plain.billable_chars + plain.chunks.size() - 1, plain.total_chars);
  EXPECT_EQ(lead.total_chars, plain.total_chars);
}

TEST(ChunkerLead, ALeadWiderThanTheCapacityIsTheCapacity) {
  const std::string text = sentences(10);
  const ChunkPlan lead = plan_chunks(text, with_lead(40, 250));
  const ChunkPlan plain = plan_chunks(text, ChunkerOptions{.capacity = 40});
  EXPECT_EQ(texts_of(lead), texts_of(plain));
}

TEST(ChunkerLead, ParagraphModeLeadsTheFirstParagraphOnly) {
  const std::string text = sentences(3) + "\n\n" + sentences(3);
  const ChunkPlan plan = plan_chunks(text, with_lead(3000, 250, CapacityUnit::chars, GenerationMode::paragraph));
  ASSERT_EQ(plan.chunks.size(), 3u);
  EXPECT_EQ(plan.chunks[0].text, "Sentence number 0 is here to be spoken aloud.");
  EXPECT_EQ(plan.chunks[0].paragraph_index, 0u);
  EXPECT_EQ(plan.chunks[1].paragraph_index, 0u);
  EXPECT_EQ(plan.chunks[2].text, sentences(3));
  EXPECT_EQ(plan.chunks[2].paragraph_index, 1u);
}

TEST(ChunkerLead, CjkTerminatorsEndTheLeadWithoutASpace) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "这是一个用来朗读的句子。";  // 12 code points each
  const ChunkPlan plan = plan_chunks(text, with_lead(3000, 250));
  ASSERT_EQ(plan.chunks.size(), 2u);
  EXPECT_EQ(plan.chunks[0].length, 24u);  // the first boundary past 20 code points
  EXPECT_EQ(plan.chunks[0].separator, "");
  EXPECT_EQ(rejoin(plan), plan.cleaned);
}

TEST(ChunkerLead, TheLeadWindowCountsInTheModelsUnit) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "éé ";  // 4 bytes a word
  const ChunkPlan plan = plan_chunks(text, with_lead(3000, 50, CapacityUnit::utf8_bytes));
  ASSERT_EQ(plan.chunks.size(), 2u);
  EXPECT_LE(plan.chunks[0].raw_length, 50u);
  EXPECT_EQ(plan.chunks[0].raw_length, plan.chunks[0].text.size());
}

}  // namespace
}  // namespace mediagen::orders
