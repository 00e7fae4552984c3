// The music composer's tables and scores: what the words choose, and what the seed may and may not
// change. (music_engine_test.cpp listens to the rendered result.)
#include "engines/music/music_composer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

#include "engines/music/music_master.hpp"
#include "engines/music/music_styles.hpp"

namespace mediagen::engines::music {
namespace {

TEST(MusicStyles, ThePromptsOfTheIssueComeOutAsAListenerExpects) {
  const auto piano = arrange("slow calm piano");
  EXPECT_EQ(piano.style.name, "default");
  EXPECT_LE(piano.style.bpm, 80);
  EXPECT_EQ(piano.style.chords, 0);
  EXPECT_EQ(piano.style.lead, 0);
  EXPECT_TRUE(piano.style.kit == Kit::none || piano.style.kit == Kit::soft);
  EXPECT_EQ(piano.energy, -1);

  const auto dnb = arrange("fast energetic drum and bass");
  EXPECT_EQ(dnb.style.name, "drum and bass");
  EXPECT_GE(dnb.style.bpm, 165);
  EXPECT_LE(dnb.style.bpm, 180);
  EXPECT_EQ(dnb.style.kit, Kit::dnb);
  EXPECT_EQ(dnb.energy, 1);

  EXPECT_EQ(arrange("epic orchestral").style.name, "orchestral");
  EXPECT_EQ(arrange("Lofi Hip-Hop beats to study").style.name, "lofi hip hop");
  const auto sleep = arrange("спокойная музыка для сна");
  EXPECT_EQ(sleep.style.name, "ambient");
  EXPECT_EQ(sleep.style.kit, Kit::none);
  EXPECT_EQ(sleep.energy, -1);
  const auto rock = arrange("весёлый рок");
  EXPECT_EQ(rock.style.name, "rock");
  EXPECT_EQ(rock.style.mode, Mode::major);
  EXPECT_EQ(arrange("dark rock").style.mode, Mode::minor);
}

TEST(MusicStyles, UnknownWordsAndLookAlikesFallBackToTheDefault) {
  for (const char* prompt : {"", "xyzzy", "日本語", "\xff\xfe", "good choir-less drums", "хороший"}) {
    SCOPED_TRACE(prompt);
    EXPECT_EQ(arrange(prompt).style.name, "default");
  }
  EXPECT_EQ(arrange("хороший").style.lead, styles().front().lead);  // "хор" (choir) is a whole word only
  EXPECT_EQ(arrange("хор").style.lead, 52);
  EXPECT_EQ(arrange("rock without drums").style.kit, Kit::none);
  EXPECT_EQ(arrange("electric guitar jazz").style.lead, 29);
}

TEST(MusicComposer, TheSeedChangesTheNotesButNotTempoKeyOrInstruments) {
  const auto arrangement = arrange("happy folk guitar");
  const std::int64_t frames = 20 * kSampleRate;
  const Score a = compose(arrangement, frames, 1), b = compose(arrangement, frames, 2);
  EXPECT_EQ(a.bpm, b.bpm);
  EXPECT_EQ(a.tonic, b.tonic);
  EXPECT_EQ(a.mode, b.mode);
  for (std::size_t p = 0; p < kParts; ++p) EXPECT_EQ(a.parts[p].program, b.parts[p].program);
  const auto keys = [](const Score& s, int channel) {
    std::vector<std::pair<std::int64_t, int>> out;
    for (const auto& n : s.notes)
      if (n.channel == channel) out.emplace_back(n.on, n.key);
    return out;
  };
  EXPECT_NE(keys(a, channel_of(Part::lead)), keys(b, channel_of(Part::lead)));
  EXPECT_NE(keys(a, kDrumChannel), keys(b, kDrumChannel));
  EXPECT_EQ(keys(a, channel_of(Part::lead)), keys(compose(arrangement, frames, 1), channel_of(Part::lead)));
}

TEST(MusicComposer, EveryNoteEndsWithinThePieceOnAPlayingChannel) {
  for (const auto& style : styles()) {
    SCOPED_TRACE(std::string(style.name));
    for (const std::int64_t frames : {std::int64_t{kSampleRate / 2}, std::int64_t{7 * kSampleRate}, std::int64_t{95 * kSampleRate}}) {
      const Score score = compose({style, 0}, frames, 3);
      ASSERT_FALSE(score.notes.empty());
      EXPECT_LE(tick_to_sample(score.total_ticks, score.bpm), frames);
      std::set<int> channels;
      for (const auto& p : {Part::chords, Part::pad, Part::bass, Part::lead, Part::drums})
        if (score.parts[static_cast<std::size_t>(p)].program >= 0) channels.insert(channel_of(p));
      for (const auto& n : score.notes) {
        ASSERT_LT(n.on, n.off);
        ASSERT_LE(n.off, score.total_ticks);
        ASSERT_TRUE(channels.contains(n.channel)) << int(n.channel);
        ASSERT_GE(n.velocity, 1);
      }
      // Something sounds until the end: the piece does not stop before its fade.
      const auto last_off = std::max_element(score.notes.begin(), score.notes.end(),
                                             [](const Note& x, const Note& y) { return x.off < y.off; })->off;
      EXPECT_EQ(last_off, score.total_ticks);
    }
  }
}

TEST(MusicMaster, LevelsLimitsAndFadesToTheEnd) {
  const std::int64_t frames = 3 * kSampleRate;
  std::vector<float> left(static_cast<std::size_t>(frames)), right(left.size());
  for (std::size_t i = 0; i < left.size(); ++i) {
    left[i] = static_cast<float>(0.01 * std::sin(static_cast<double>(i) * 0.05));  // -43 dBFS
    right[i] = i % 20000 < 200 ? 0.9f : left[i];                                     // spikes far over
  }
  std::vector<std::int16_t> out;
  MasterBus bus({.total_frames = frames, .fade_in_frames = 200, .fade_out_frames = kSampleRate / 2},
                [&](std::span<const std::int16_t> pcm) {
                  out.insert(out.end(), pcm.begin(), pcm.end());
                  return true;
                });
  for (std::size_t at = 0; at < left.size(); at += 1000) {
    const std::size_t n = std::min<std::size_t>(1000, left.size() - at);
    ASSERT_TRUE(bus.push({left.data() + at, n}, {right.data() + at, n}));
  }
  ASSERT_TRUE(bus.finish());
  ASSERT_EQ(out.size(), left.size() * 2);
  int peak = 0;
  for (const auto s : out) peak = std::max(peak, std::abs(int{s}));
  EXPECT_LE(peak, static_cast<int>(0.84 * 32767) + 1);
  EXPECT_GT(peak, 16000);  // the quiet signal was raised
  EXPECT_LT(bus.lowest_limiter_gain(), 1.0);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[out.size() - 1], 0);
  EXPECT_EQ(out[out.size() - 2], 0);
}

TEST(MusicMaster, ASinkThatRefusesStopsTheBus) {
  MasterBus bus({.total_frames = 100'000}, [](std::span<const std::int16_t>) { return false; });
  const std::vector<float> block(100'000, 0.1f);
  EXPECT_FALSE(bus.push(block, block) && bus.finish());
}

}  // namespace
}  // namespace mediagen::engines::music
