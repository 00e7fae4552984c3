#include <gtest/gtest.h>

#include <random>

#include "mediagen/orders/preview.hpp"
#include "orders/preview/preview_codec.hpp"

namespace mediagen::orders {
namespace {

std::string plan_document(std::size_t chunks) {
  std::string doc = R"({"status":"ready","preview_id":"ab","summary":{"chunks":)" + std::to_string(chunks) +
                    R"(},"chunks":[)";
  for (std::size_t i = 0; i < chunks; ++i) {
    if (i) doc += ',';
    doc += R"({"chunk_index":)" + std::to_string(i) +
           R"(,"text":"A sentence of the text goes here, \"quoted\" and ünïcödé.","length":52,"caps_ok":true})";
  }
  return doc + "]}";
}

TEST(PreviewCodec, APackedDocumentReadsBackByteForByte) {
  for (const std::string& doc : {std::string(), std::string("{}"), plan_document(1), plan_document(2000)}) {
    const std::string packed = pack_preview(doc);
    EXPECT_TRUE(packed.starts_with(kPackedPreviewTag));
    const auto back = unpack_preview(packed);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, doc);
  }
}

TEST(PreviewCodec, APlanShrinksSeveralTimes) {
  const std::string doc = plan_document(2000);
  EXPECT_LT(pack_preview(doc).size() * 5, doc.size());
}

TEST(PreviewCodec, IncompressibleBytesStillRoundTrip) {
  std::mt19937 random(7);
  std::string doc(300'000, '\0');
  for (auto& c : doc) c = static_cast<char>(random());
  const auto back = unpack_preview(pack_preview(doc));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, doc);
}

TEST(PreviewCodec, APlainDocumentIsReadAsItIs) {
  const std::string processing = render_processing("ab");
  EXPECT_EQ(unpack_preview(processing), processing);
  EXPECT_EQ(unpack_preview(plan_document(3)), plan_document(3));
}

TEST(PreviewCodec, RefusesWhatItDidNotWrite) {
  const std::string packed = pack_preview(plan_document(50));
  EXPECT_FALSE(unpack_preview(""));
  EXPECT_FALSE(unpack_preview("garbage"));
  EXPECT_FALSE(unpack_preview(kPackedPreviewTag));
  EXPECT_FALSE(unpack_preview(std::string(kPackedPreviewTag) + "not deflated"));
  EXPECT_FALSE(unpack_preview(packed.substr(0, packed.size() - 1)));  // cut
  EXPECT_FALSE(unpack_preview(packed.substr(0, packed.size() / 2)));
  EXPECT_FALSE(unpack_preview(packed + "x"));                        // trailing bytes
  std::string flipped = packed;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x55);
  const auto read = unpack_preview(flipped);
  EXPECT_TRUE(!read || *read != plan_document(50));  // the checksum catches what inflate does not
}

TEST(PreviewCodec, RefusesAValueThatInflatesPastTheCap) {
  constexpr std::size_t cap = 5'000'000;
  const std::string bomb = pack_preview(std::string(cap + 1, ' '));
  EXPECT_LT(bomb.size(), 50'000u);
  EXPECT_FALSE(unpack_preview(bomb, cap));
  const auto back = unpack_preview(pack_preview(std::string(cap, ' ')), cap);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->size(), cap);
  EXPECT_FALSE(unpack_preview("{" + std::string(cap, ' '), cap));
}

}  // namespace
}  // namespace mediagen::orders
