// The embedded speech engine, end to end: text in, MP3 out, decoded again and listened to.
#include "mediagen/engines/speech.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include "unit/engines/mp3_decode.hpp"

namespace mediagen::engines {
namespace {

using testing::decode_mp3;
using testing::rms;

const std::string kEnglish = "The quick brown fox jumps over the lazy dog. It was a bright cold day in April.";
const std::string kRussian = "Съешь же ещё этих мягких французских булок, да выпей чаю.";

// Byte offsets where the whitespace-separated tokens of a text start.
std::vector<std::size_t> token_starts(const std::string& text) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool space = std::isspace(static_cast<unsigned char>(text[i])) != 0;
    const bool prev_space = i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1])) != 0;
    if (!space && prev_space) starts.push_back(i);
  }
  return starts;
}

SpeechRequest request(std::string text, std::string voice, VoiceSettings settings = {}) {
  SpeechRequest r;
  r.text = std::move(text);
  r.espeak_voice = std::move(voice);
  r.settings = settings;
  return r;
}

// Two syntheses of one request: espeak-ng is not bit-exact between calls (see the engine's
// header), but the words, their timings and the length agree closely.
void expect_same_speech(const Audio& a, const Audio& b) {
  EXPECT_NEAR(static_cast<double>(a.duration_ms), static_cast<double>(b.duration_ms), 0.02 * b.duration_ms + 60);
  ASSERT_EQ(a.words.size(), b.words.size());
  for (std::size_t i = 0; i < a.words.size(); ++i) {
    EXPECT_EQ(a.words[i].text_offset, b.words[i].text_offset);
    EXPECT_NEAR(static_cast<double>(a.words[i].start_ms), static_cast<double>(b.words[i].start_ms),
                0.02 * static_cast<double>(b.words[i].start_ms) + 30);
  }
  const double rms_a = rms(decode_mp3(a.mp3).samples);
  const double rms_b = rms(decode_mp3(b.mp3).samples);
  EXPECT_NEAR(rms_a, rms_b, 0.05 * rms_b);
}

// Everything a listener and a subtitle writer rely on.
void expect_good_speech(const Audio& audio, const std::string& text) {
  const auto words = token_starts(text);
  ASSERT_FALSE(audio.mp3.empty());
  EXPECT_EQ(audio.sample_rate, 22050);

  const auto decoded = decode_mp3(audio.mp3);
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_EQ(decoded.rate, 22050);
  EXPECT_EQ(decoded.channels, 1);
  EXPECT_GT(rms(decoded.samples), 1000.0) << "speech is audible, not silence";

  const auto decoded_ms = decoded.duration_ms();
  EXPECT_NEAR(static_cast<double>(audio.duration_ms), static_cast<double>(decoded_ms), 0.1 * decoded_ms);
  EXPECT_GE(decoded_ms, 40 * static_cast<std::int64_t>(words.size()));
  EXPECT_LE(decoded_ms, 400 * static_cast<std::int64_t>(words.size()));

  // Timings at word starts, in order, inside the audio. espeak-ng times nearly every word; a
  // short function word it speaks together with the next one ("a bright") has no timing.
  ASSERT_GE(audio.words.size(), words.size() * 8 / 10);
  ASSERT_LE(audio.words.size(), words.size());
  std::int64_t previous_ms = 0;
  for (std::size_t i = 0; i < audio.words.size(); ++i) {
    const auto& w = audio.words[i];
    EXPECT_TRUE(std::find(words.begin(), words.end(), w.text_offset) != words.end())
        << "word " << i << " at byte " << w.text_offset << " is not a word start";
    EXPECT_GT(w.text_length, 0u);
    EXPECT_LE(w.text_offset + w.text_length, text.size());
    EXPECT_GE(w.start_ms, previous_ms) << "word " << i;
    EXPECT_LT(w.start_ms, audio.duration_ms) << "word " << i;
    if (i > 0) {
      EXPECT_GT(w.text_offset, audio.words[i - 1].text_offset);
    }
    previous_ms = w.start_ms;
  }
  // The last word starts well after the first: timings follow the speech.
  EXPECT_GT(audio.words.back().start_ms - audio.words.front().start_ms, audio.duration_ms / 2);
}

TEST(EspeakEngine, SpeaksEnglish) {
  EspeakEngine engine;
  auto audio = engine.synthesize(request(kEnglish, "en-us"));
  ASSERT_TRUE(audio) << audio.error().detail;
  expect_good_speech(*audio, kEnglish);
  // Word texts: "The", "quick", ... (espeak's word, without the following punctuation).
  std::vector<std::string> spoken;
  for (const auto& w : audio->words) spoken.push_back(kEnglish.substr(w.text_offset, w.text_length));
  EXPECT_EQ(spoken, (std::vector<std::string>{"The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog",
                                              "It", "was", "bright", "cold", "day", "in", "April"}));
}

TEST(EspeakEngine, SpeaksRussian) {
  EspeakEngine engine;
  auto audio = engine.synthesize(request(kRussian, "ru"));
  ASSERT_TRUE(audio) << audio.error().detail;
  expect_good_speech(*audio, kRussian);
  std::vector<std::string> spoken;
  for (const auto& w : audio->words) spoken.push_back(kRussian.substr(w.text_offset, w.text_length));
  EXPECT_EQ(spoken, (std::vector<std::string>{"Съешь", "же", "ещё", "этих", "мягких", "французских", "булок", "да",
                                              "выпей", "чаю"}));
}

TEST(EspeakEngine, KeepsTimingsAlignedOverALongText) {
  // Several paragraphs, ~3,000 characters: espeak-ng emits stray events at paragraph breaks
  // (pointing back at the line break); timings must stay on word starts to the end.
  const std::string paragraph =
      "The harbour town woke slowly that morning. Fishing boats rocked against the old stone pier, and a thin "
      "mist hung over the water while the first shops opened their shutters. Somewhere a radio played a song "
      "nobody could quite name.";
  std::string text;
  while (text.size() < 3000) text += (text.empty() ? "" : "\n\n") + paragraph;
  EspeakEngine engine;
  auto audio = engine.synthesize(request(text, "en-us"));
  ASSERT_TRUE(audio) << audio.error().detail;
  expect_good_speech(*audio, text);
  // The last word starts in the last few seconds of the audio, not drifted away from it.
  EXPECT_GT(audio->words.back().start_ms, audio->duration_ms - 3000);
  EXPECT_EQ(audio->words.back().text_offset, text.rfind("name."));
}

TEST(EspeakEngine, LanguageCodeSelectsTheLanguageVoice) {
  EspeakEngine engine;
  // An English voice asked to speak Russian: the Russian voice speaks it, word by word.
  auto r = request(kRussian, "en-us");
  r.language_code = "ru";
  auto audio = engine.synthesize(r);
  ASSERT_TRUE(audio) << audio.error().detail;
  expect_good_speech(*audio, kRussian);
  auto reference = engine.synthesize(request(kRussian, "ru"));
  ASSERT_TRUE(reference);
  expect_same_speech(*audio, *reference);
}

TEST(EspeakEngine, SpeedChangesTheLength) {
  EspeakEngine engine;
  auto fast = engine.synthesize(request(kEnglish, "en-us", {.speed = 1.2}));
  auto slow = engine.synthesize(request(kEnglish, "en-us", {.speed = 0.7}));
  ASSERT_TRUE(fast && slow);
  EXPECT_LT(fast->duration_ms * 13 / 10, slow->duration_ms);
  EXPECT_LT(fast->words.back().start_ms, slow->words.back().start_ms);
}

TEST(EspeakEngine, SettingsChangeTheVoice) {
  EspeakEngine engine;
  auto neutral = engine.synthesize_pcm(request(kEnglish, "en-us"));
  auto quiet = engine.synthesize_pcm(request(kEnglish, "en-us", {.use_speaker_boost = false}));
  auto low = engine.synthesize_pcm(request(kEnglish, "en-us", {.similarity_boost = 0.0}));
  auto flat = engine.synthesize_pcm(request(kEnglish, "en-us", {.stability = 1.0}));
  ASSERT_TRUE(neutral && quiet && low && flat);
  const auto size = static_cast<double>(neutral->samples.size());
  EXPECT_LT(rms(quiet->samples), 0.9 * rms(neutral->samples));
  EXPECT_FALSE(low->samples == neutral->samples);
  EXPECT_FALSE(flat->samples == neutral->samples);
  // Pitch and pitch range change the voice, not the tempo.
  EXPECT_NEAR(static_cast<double>(low->samples.size()), size, 0.05 * size);
  EXPECT_NEAR(static_cast<double>(flat->samples.size()), size, 0.05 * size);
  // Defaults are the neutral values: giving them explicitly changes nothing.
  auto explicit_defaults = engine.synthesize_pcm(request(
      kEnglish, "en-us", {.stability = 0.5, .similarity_boost = 0.75, .speed = 1.0, .use_speaker_boost = true}));
  ASSERT_TRUE(explicit_defaults);
  EXPECT_NEAR(static_cast<double>(explicit_defaults->samples.size()), size, 0.01 * size);
  EXPECT_NEAR(rms(explicit_defaults->samples), rms(neutral->samples), 0.03 * rms(neutral->samples));
}

TEST(EspeakEngine, VariantChangesTheVoice) {
  EspeakEngine engine;
  auto plain = engine.synthesize_pcm(request(kEnglish, "en-us"));
  auto r = request(kEnglish, "en-us");
  r.variant = "f2";
  auto female = engine.synthesize_pcm(r);
  r.variant = "Mr serious";  // a key with a space
  auto serious = engine.synthesize_pcm(r);
  ASSERT_TRUE(plain && female && serious);
  EXPECT_FALSE(female->samples == plain->samples);
  EXPECT_FALSE(serious->samples == plain->samples);
}

TEST(EspeakEngine, PcmTimingsAreOnThePcmTimeLine) {
  EspeakEngine engine;
  auto pcm = engine.synthesize_pcm(request(kEnglish, "en-us"));
  auto audio = engine.synthesize(request(kEnglish, "en-us"));
  ASSERT_TRUE(pcm && audio);
  EXPECT_EQ(pcm->sample_rate, 22050);
  EXPECT_EQ(pcm->words.front().start_ms, 0);
  ASSERT_EQ(pcm->words.size(), audio->words.size());
  // The MP3 starts with the codec's delay (1105 samples at 22,050 Hz = 50 ms). The two are separate
  // syntheses, and espeak-ng's word positions are whole milliseconds that the utterance before
  // (another language's, say) can move by one.
  for (std::size_t i = 0; i < pcm->words.size(); ++i) {
    EXPECT_NEAR(audio->words[i].start_ms, pcm->words[i].start_ms + 50, 1) << "word " << i;
  }
  const auto pcm_ms = static_cast<std::int64_t>(pcm->samples.size()) * 1000 / 22050;
  EXPECT_GE(audio->duration_ms, pcm_ms + 50);
  EXPECT_LE(audio->duration_ms, pcm_ms + 50 + 2 * 27);  // padding to whole 26 ms frames
}

TEST(EspeakEngine, ConcurrentCallersGetTheirOwnResults) {
  EspeakEngine engine;
  // Four requests that sound clearly different (language, speed, volume); every concurrent
  // result must match its own sequential reference: no settings, voice or audio leak between jobs.
  const std::vector<SpeechRequest> requests = {
      request(kEnglish, "en-us"),
      request(kRussian, "ru", {.speed = 1.2}),
      request(kEnglish, "en-us", {.stability = 1.0, .speed = 0.7, .use_speaker_boost = false}),
      request(kRussian, "ru", {.similarity_boost = 0.2, .speed = 0.7}),
  };
  std::vector<Audio> reference;
  for (const auto& r : requests) {
    auto audio = engine.synthesize(r);
    ASSERT_TRUE(audio) << audio.error().detail;
    reference.push_back(std::move(*audio));
  }
  constexpr int kThreads = 4;
  constexpr int kRounds = 3;
  std::vector<std::vector<Audio>> results(kThreads);
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        auto audio = engine.synthesize(requests[static_cast<std::size_t>((t + round) % kThreads)]);
        if (!audio) {
          failures[static_cast<std::size_t>(t)] = audio.error().detail;
          return;
        }
        results[static_cast<std::size_t>(t)].push_back(std::move(*audio));
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(failures[static_cast<std::size_t>(t)], "");
    ASSERT_EQ(results[static_cast<std::size_t>(t)].size(), static_cast<std::size_t>(kRounds));
    for (int round = 0; round < kRounds; ++round) {
      SCOPED_TRACE("thread " + std::to_string(t) + " round " + std::to_string(round));
      const auto index = static_cast<std::size_t>((t + round) % kThreads);
      const auto& audio = results[static_cast<std::size_t>(t)][static_cast<std::size_t>(round)];
      ASSERT_TRUE(decode_mp3(audio.mp3).ok);
      expect_same_speech(audio, reference[index]);
    }
  }
}

TEST(EspeakEngine, RefusesEmptyText) {
  EspeakEngine engine;
  for (const std::string text : {"", " ", " \n\t ", "\u00A0\u3000"}) {
    auto audio = engine.synthesize(request(text, "en-us"));
    ASSERT_FALSE(audio) << "'" << text << "'";
    EXPECT_EQ(audio.error().kind, FailureKind::technical);
    EXPECT_NE(audio.error().detail.find("empty"), std::string::npos) << audio.error().detail;
  }
}

TEST(EspeakEngine, RefusesBadInput) {
  EspeakEngine engine;
  auto invalid = engine.synthesize(request("abc\xC3(", "en-us"));
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().kind, FailureKind::technical);
  auto nul = engine.synthesize(request(std::string("ab\0cd", 5), "en-us"));
  ASSERT_FALSE(nul);
  auto voice = engine.synthesize(request("hello", "xx-nosuch"));
  ASSERT_FALSE(voice);
  EXPECT_NE(voice.error().detail.find("voice"), std::string::npos);
  auto r = request("hello", "en-us");
  r.variant = "nosuch";
  auto variant = engine.synthesize(r);
  ASSERT_FALSE(variant);
  EXPECT_NE(variant.error().detail.find("variant"), std::string::npos);
  r.variant.clear();
  r.language_code = "zz";
  auto language = engine.synthesize(r);
  ASSERT_FALSE(language);
  EXPECT_NE(language.error().detail.find("language_code"), std::string::npos);
  // value() on a failure throws the failure.
  EXPECT_THROW((void)engine.synthesize(request("", "en-us")).value(), EngineError);
}

TEST(EspeakEngine, MarkupIsSpokenNotInterpreted) {
  EspeakEngine engine;
  const std::string text = "<b>tags</b> & (parens) *stars*";
  auto audio = engine.synthesize(request(text, "en-us"));
  ASSERT_TRUE(audio) << audio.error().detail;
  const auto decoded = decode_mp3(audio->mp3);
  ASSERT_TRUE(decoded.ok);
  EXPECT_GT(rms(decoded.samples), 1000.0);
  // SSML would drop the tags: spoken, "b tags slash b and parens asterisk stars asterisk" is long.
  EXPECT_GT(audio->duration_ms, 2000);
  ASSERT_GE(audio->words.size(), 4u);
  std::size_t previous_end = 0;
  for (const auto& w : audio->words) {
    EXPECT_GE(w.text_offset, previous_end);
    EXPECT_LE(w.text_offset + w.text_length, text.size());
    previous_end = w.text_offset + w.text_length;
  }
  // An SSML-looking document is read out too, not obeyed.
  auto ssml = engine.synthesize_pcm(request("<speak><break time=\"3s\"/>hi</speak>", "en-us"));
  auto hi = engine.synthesize_pcm(request("hi", "en-us"));
  ASSERT_TRUE(ssml && hi);
  EXPECT_GT(ssml->samples.size(), 2 * hi->samples.size());
  EXPECT_GE(ssml->words.size(), 4u);
}

TEST(EspeakEngine, SpeaksWithEveryListedVoice) {
  EspeakEngine engine;
  const auto voices = list_espeak_voices();
  for (const auto& v : voices) {
    auto pcm = engine.synthesize_pcm(request("1", v.identifier));
    ASSERT_TRUE(pcm) << v.identifier << ": " << pcm.error().detail;
    EXPECT_FALSE(pcm->samples.empty()) << v.identifier;
  }
}

TEST(EspeakVoices, ListsVoicesAndVariants) {
  const auto voices = list_espeak_voices();
  const auto variants = list_espeak_variants();
  ASSERT_GT(voices.size(), 50u);
  ASSERT_GT(variants.size(), 10u);
  EXPECT_TRUE(std::is_sorted(voices.begin(), voices.end(),
                             [](const auto& a, const auto& b) { return a.identifier < b.identifier; }));
  EXPECT_TRUE(std::adjacent_find(voices.begin(), voices.end(), [](const auto& a, const auto& b) {
                return a.identifier == b.identifier;
              }) == voices.end());
  auto voice = [&](const std::string& id) {
    return std::find_if(voices.begin(), voices.end(), [&](const auto& v) { return v.identifier == id; });
  };
  auto us = voice("gmw/en-US");
  ASSERT_NE(us, voices.end());
  EXPECT_EQ(us->name, "English (America)");
  ASSERT_FALSE(us->languages.empty());
  EXPECT_EQ(us->languages.front().tag, "en-us");
  auto ru = voice("zle/ru");
  ASSERT_NE(ru, voices.end());
  EXPECT_EQ(ru->languages.front().tag, "ru");
  for (const auto& v : voices) {
    EXPECT_FALSE(v.name.empty());
    EXPECT_FALSE(v.languages.empty()) << v.identifier;
    EXPECT_NE(v.identifier.rfind("!v/", 0), 0u) << "variants are listed apart";
  }
  auto variant = [&](const std::string& key) {
    return std::find_if(variants.begin(), variants.end(), [&](const auto& v) { return v.key == key; });
  };
  ASSERT_NE(variant("m3"), variants.end());
  EXPECT_EQ(variant("m3")->gender, EspeakGender::male);
  ASSERT_NE(variant("f2"), variants.end());
  EXPECT_EQ(variant("f2")->gender, EspeakGender::female);
  EXPECT_EQ(variant("f2")->identifier, "!v/f2");
  EXPECT_EQ(to_string(EspeakGender::female), "female");
}

TEST(EspeakVoices, ListingIsSafeDuringSynthesis) {
  EspeakEngine engine;
  std::thread speaker([&] {
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(engine.synthesize(request(kEnglish, "en-us")));
  });
  for (int i = 0; i < 50; ++i) EXPECT_FALSE(list_espeak_voices().empty());
  speaker.join();
}

}  // namespace
}  // namespace mediagen::engines
