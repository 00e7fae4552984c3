// Ranking of the catalogue's stored descriptions (voices/voice_search.hpp) and the result a
// voice_search chunk stores (workers/voice_search_job.hpp).
#include "mediagen/voices/voice_search.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "workers/voice_search_job.hpp"

namespace mediagen::voices {
namespace {

engines::VoiceFeatures at(float x) {
  engines::VoiceFeatures f{};
  f.fill(x);
  return f;
}

VoiceIndex sample_index() {
  // Three pairs; pair 1 is shared by two services' voices.
  return VoiceIndex({at(0), at(1), at(5)}, {{"far", "provider_a", "Far", 2},
                                            {"near-b", "provider_b", "Near", 1},
                                            {"near-a", "provider_a", "Near", 1},
                                            {"zero", "provider_c", "Zero", 0}});
}

TEST(VoiceIndex, RanksVoicesByTheirPairsDistanceBestFirst) {
  const auto index = sample_index();
  const auto top = index.rank(at(1.1f), 10);
  ASSERT_EQ(top.size(), 4u);
  // The shared pair's voices come first, tied, in service then name order.
  EXPECT_EQ(top[0].voice_id, "near-a");
  EXPECT_EQ(top[1].voice_id, "near-b");
  EXPECT_DOUBLE_EQ(top[0].score, top[1].score);
  EXPECT_EQ(top[2].voice_id, "zero");
  EXPECT_EQ(top[3].voice_id, "far");
  for (std::size_t i = 1; i < top.size(); ++i) EXPECT_GE(top[i - 1].score, top[i].score);
  EXPECT_GT(top[0].score, 0);
  EXPECT_LE(top[0].score, 1);
}

TEST(VoiceIndex, TopCutsTheListAndPairsRankAlone) {
  const auto index = sample_index();
  EXPECT_EQ(index.rank(at(0), 1).size(), 1u);
  EXPECT_EQ(index.rank(at(0), 1).front().voice_id, "zero");
  EXPECT_EQ(index.rank(at(0), 50).size(), 4u);
  EXPECT_EQ(index.rank_pairs(at(4.9f)), (std::vector<std::size_t>{2, 1, 0}));
  const VoiceIndex empty({}, {});
  EXPECT_TRUE(empty.rank(at(0), 10).empty());
}

TEST(VoiceSearchResult, JsonShape) {
  const std::vector<VoiceMatch> matches{{"id-1", "provider_c", "Alicia", 0.876543}, {"id-2", "provider_d", "Max", 0.5}};
  const auto j = nlohmann::json::parse(workers::detail::voice_search_result_json(matches, true, 60.004));
  ASSERT_EQ(j["voices"].size(), 2u);
  EXPECT_EQ(j["voices"][0], nlohmann::json({{"voice_id", "id-1"}, {"service", "provider_c"}, {"name", "Alicia"},
                                            {"score", 0.8765}}));
  EXPECT_EQ(j["voices"][1]["voice_id"], "id-2");
  EXPECT_EQ(j["truncated"], true);
  EXPECT_DOUBLE_EQ(j["analysed_seconds"].get<double>(), 60.0);
  const auto none = nlohmann::json::parse(workers::detail::voice_search_result_json({}, false, 3.5));
  EXPECT_EQ(none["voices"], nlohmann::json::array());
  EXPECT_EQ(none["truncated"], false);
}

}  // namespace
}  // namespace mediagen::voices
