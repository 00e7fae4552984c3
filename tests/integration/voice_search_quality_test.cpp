// Search quality over the stored features, on real PostgreSQL through the real seed path: the
// catalogue seeded as seed-demo seeds it, one service's voices described by
// voices::seed_voice_features (the code behind `admin voices features`), the index loaded as
// the workers load it. Then 40 of those catalogue voices speak a text none of the stored
// features came from (other numbers, in the voice's own language), each sample goes through
// audio intake as an upload would (WAV, resampled to 16 kHz), and is ranked.
//
// Several catalogue voices share one (voice, variant) pair and so sound identical: a search
// that finds the pair finds each of them at the same distance. "Own voice" is therefore counted
// as the pair: first means no other pair is closer; top 5 means fewer than five are.
//
// One service (provider_c: eleven languages, eight voices each) is described rather than the
// whole catalogue: describing all of it takes minutes in a sanitizer build.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "mediagen/db/pg.hpp"
#include "mediagen/engines/codec.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/voices/catalogue_builder.hpp"
#include "mediagen/voices/voice_search.hpp"
#include "mediagen/voices/voices.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

constexpr std::string_view kQueryText = "21, 32, 43, 54, 65, 76, 87, 98. 200, 300, 1000, 2026, 1999.";

std::string wav_of(const engines::SpeechPcm& pcm) {
  std::string out = "RIFF";
  const auto put = [&](std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  const auto data = static_cast<std::uint32_t>(pcm.samples.size() * 2);
  const auto rate = static_cast<std::uint32_t>(pcm.sample_rate);
  put(36 + data, 4);
  out += "WAVEfmt ";
  put(16, 4), put(1, 2), put(1, 2), put(rate, 4), put(rate * 2, 4), put(2, 2), put(16, 2);
  out += "data";
  put(data, 4);
  out.append(reinterpret_cast<const char*>(pcm.samples.data()), data);
  return out;
}

class VoiceSearchQualityTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    catalogue = voices::installed_catalogue();
    db::transact(*db, [&](db::Tx& tx) {
      templates::seed_catalogue(*db, tx);
      voices::seed_voices(*db, tx, catalogue);
    });
  }
  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  std::optional<db::Db> db;
  std::vector<voices::VoiceSeed> catalogue;
};

TEST_F(VoiceSearchQualityTest, FortyCatalogueVoicesFindTheirOwnFromAnotherText) {
  const auto seeded = voices::seed_voice_features(*db, 2, std::string("provider_c"));
  ASSERT_GE(seeded.pairs, 40);
  EXPECT_EQ(seeded.computed, seeded.pairs);
  EXPECT_EQ(seeded.failed, 0);
  // Computed once: a second seed finds nothing to do.
  EXPECT_EQ(voices::seed_voice_features(*db, 2, std::string("provider_c")).computed, 0);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM voice_features"), std::to_string(seeded.pairs));

  const auto index = voices::load_voice_index(*db);
  ASSERT_EQ(index->pair_count(), static_cast<std::size_t>(seeded.pairs));
  // 40 provider_c voices of distinct pairs, spread evenly over its languages and variants.
  std::vector<const voices::VoiceSeed*> mine;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& v : catalogue) {
    if (v.service == "provider_c" && seen.insert({v.espeak_voice, v.espeak_variant}).second) mine.push_back(&v);
  }
  ASSERT_GE(mine.size(), 40u);
  std::vector<const voices::VoiceSeed*> chosen;
  for (std::size_t i = 0; i < 40; ++i) chosen.push_back(mine[i * mine.size() / 40]);

  engines::EspeakEngine engine;
  int first = 0, top5 = 0;
  for (const auto* v : chosen) {
    std::size_t own = index->pair_count();
    for (const auto& iv : index->voices()) {
      if (iv.service == v->service && iv.voice_id == v->voice_id) own = iv.pair;
    }
    ASSERT_LT(own, index->pair_count()) << v->voice_id;
    auto pcm = engine.synthesize_pcm({.text = std::string(kQueryText), .espeak_voice = v->espeak_voice, .variant = v->espeak_variant});
    ASSERT_TRUE(pcm) << v->espeak_voice;
    auto upload = engines::read_audio(wav_of(*pcm));
    ASSERT_TRUE(upload) << v->espeak_voice;
    const auto query = engines::voice_features(std::span<const float>(upload->samples), upload->sample_rate);
    ASSERT_TRUE(query) << v->espeak_voice;
    const auto ranked = index->rank_pairs(*query);
    const auto place = static_cast<std::size_t>(std::find(ranked.begin(), ranked.end(), own) - ranked.begin());
    if (place == 0) ++first;
    if (place < 5) ++top5;
    if (place > 0) std::printf("  %s %s+%s: %zu pairs closer\n", v->name.c_str(), v->espeak_voice.c_str(), v->espeak_variant.c_str(), place);
  }
  std::printf("voice search over %zu stored pairs: own pair first for %d of 40 voices, in the top 5 for %d of 40\n",
              index->pair_count(), first, top5);
  EXPECT_GE(first, 32);  // 80 %
  EXPECT_GE(top5, 38);   // 95 %
}

}  // namespace
}  // namespace mediagen::test
