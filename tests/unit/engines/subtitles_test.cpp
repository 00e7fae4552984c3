// Subtitles of a stitched track: readable cues, on time, in order, in valid SRT and WebVTT.
#include "mediagen/engines/speech.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/audio.hpp"

namespace mediagen::engines {
namespace {

// Timings for every whitespace-separated word of text, `step_ms` apart from `first_ms`.
std::vector<WordTiming> every_word(std::string_view text, std::int64_t first_ms, std::int64_t step_ms) {
  std::vector<WordTiming> words;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ' ' && (i == 0 || text[i - 1] == ' ')) {
      const auto end = std::min(text.find(' ', i), text.size());
      words.push_back({i, end - i, first_ms + step_ms * static_cast<std::int64_t>(words.size())});
    }
  }
  return words;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (true) {
    const auto nl = text.find('\n', from);
    lines.push_back(text.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) return lines;
    from = nl + 1;
  }
}

// What every track's cues must satisfy.
void expect_well_formed(const std::vector<SubtitleCue>& cues, std::int64_t track_end) {
  std::int64_t previous_end = 0;
  for (std::size_t i = 0; i < cues.size(); ++i) {
    const auto& c = cues[i];
    EXPECT_GE(c.start_ms, previous_end) << "cue " << i << " overlaps the previous one";
    EXPECT_LT(c.start_ms, c.end_ms) << "cue " << i;
    EXPECT_LE(c.end_ms, track_end) << "cue " << i;
    EXPECT_LE(c.end_ms - c.start_ms, kSubtitleMaxCueMs) << "cue " << i;
    EXPECT_FALSE(c.text.empty());
    EXPECT_TRUE(is_valid_utf8(c.text));
    const auto lines = lines_of(c.text);
    EXPECT_LE(lines.size(), 2u) << c.text;
    for (const auto& line : lines) {
      EXPECT_LE(count_code_points(line), 42u) << line;
      EXPECT_FALSE(line.empty());
      EXPECT_NE(line.front(), ' ');
      EXPECT_NE(line.back(), ' ');
    }
    previous_end = c.end_ms;
  }
}

// The cue texts joined again, for comparing with the source text.
std::string joined_text(const std::vector<SubtitleCue>& cues, char between = ' ') {
  std::string out;
  for (const auto& c : cues) {
    if (!out.empty()) out += between;
    for (const char ch : c.text) out += ch == '\n' ? between : ch;
  }
  return out;
}

const std::string kTwoSentences = "Hello world. How are you?";

TEST(Subtitles, RendersSrtExactly) {
  const auto words = every_word(kTwoSentences, 100, 300);  // 100, 400, 700, 1000, 1300
  const TimedText chunk{kTwoSentences, words, 0, 2500};
  EXPECT_EQ(render_srt({&chunk, 1}),
            "1\n00:00:00,100 --> 00:00:00,700\nHello world.\n\n"
            "2\n00:00:00,700 --> 00:00:02,500\nHow are you?\n\n");
}

TEST(Subtitles, RendersWebVttExactly) {
  const auto words = every_word(kTwoSentences, 100, 300);
  const TimedText chunk{kTwoSentences, words, 0, 2500};
  EXPECT_EQ(render_webvtt({&chunk, 1}),
            "WEBVTT\n\n"
            "00:00:00.100 --> 00:00:00.700\nHello world.\n\n"
            "00:00:00.700 --> 00:00:02.500\nHow are you?\n\n");
}

TEST(Subtitles, PlacesChunksAtTheirOffsets) {
  const std::string first = "One small step.";
  const std::string second = "A giant leap!";
  const auto w1 = every_word(first, 50, 200);
  const auto w2 = every_word(second, 50, 200);
  const TimedText chunks[] = {{first, w1, 0, 1200}, {second, w2, 1200, 1300}};
  EXPECT_EQ(render_srt(chunks),
            "1\n00:00:00,050 --> 00:00:01,200\nOne small step.\n\n"
            "2\n00:00:01,250 --> 00:00:02,500\nA giant leap!\n\n");
  // Past the first hour.
  const TimedText late{second, w2, 3'723'406, 1000};
  EXPECT_EQ(render_webvtt({&late, 1}), "WEBVTT\n\n01:02:03.456 --> 01:02:04.406\nA giant leap!\n\n");
}

TEST(Subtitles, ChunksNeverShareACue) {
  const std::string first = "no full stop at the end";
  const std::string second = "continues here";
  const auto w1 = every_word(first, 50, 100);
  const auto w2 = every_word(second, 50, 100);
  const TimedText chunks[] = {{first, w1, 0, 1000}, {second, w2, 1000, 800}};
  const auto cues = subtitle_cues(chunks);
  ASSERT_EQ(cues.size(), 2u);
  EXPECT_EQ(cues[0], (SubtitleCue{50, 1000, "no full stop at the end"}));
  EXPECT_EQ(cues[1], (SubtitleCue{1050, 1800, "continues here"}));
}

TEST(Subtitles, SplitsALongSentenceIntoTwoLineCues) {
  const std::string text =
      "This sentence is deliberately long, so long that it cannot possibly fit on the two lines of a single "
      "subtitle cue, and it keeps going with more and more words until the reader is tired of it";
  const auto words = every_word(text, 50, 250);
  const std::int64_t end = 50 + 250 * static_cast<std::int64_t>(words.size()) + 400;
  const TimedText chunk{text, words, 0, end};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_GE(cues.size(), 3u);
  expect_well_formed(cues, end);
  EXPECT_EQ(joined_text(cues), text);
  EXPECT_EQ(cues.front().start_ms, 50);
  EXPECT_EQ(cues.back().end_ms, end);
  // Cues follow each other without gaps inside a chunk.
  for (std::size_t i = 1; i < cues.size(); ++i) {
    EXPECT_EQ(cues[i].start_ms, cues[i - 1].end_ms);
  }
  // Two-line cues break evenly rather than leaving a word alone on a line.
  for (const auto& c : cues) {
    const auto lines = lines_of(c.text);
    if (lines.size() == 2) {
      EXPECT_GT(count_code_points(lines[1]), 10u) << c.text;
    }
  }
}

TEST(Subtitles, CountsCodePointsNotBytes) {
  // 33 code points but 62 bytes: one line.
  const std::string short_ru = "Съешь же ещё этих мягких булочек.";
  const auto w = every_word(short_ru, 0, 300);
  const TimedText chunk{short_ru, w, 0, 3000};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_EQ(cues.size(), 1u);
  EXPECT_EQ(cues[0].text, short_ru);

  std::string long_ru;
  for (int i = 0; i < 6; ++i) long_ru += "съешь же ещё этих мягких французских булок ";
  long_ru.pop_back();
  const auto lw = every_word(long_ru, 0, 200);
  const TimedText long_chunk{long_ru, lw, 0, 200 * static_cast<std::int64_t>(lw.size()) + 500};
  const auto long_cues = subtitle_cues({&long_chunk, 1});
  expect_well_formed(long_cues, long_chunk.duration_ms);
  EXPECT_EQ(joined_text(long_cues), long_ru);
}

TEST(Subtitles, KeepsPunctuationAndCollapsesWhitespace) {
  const std::string text = "\"Wait,\"  she said.\n\nThen\t(quietly) left…  ";
  // Word timings as espeak-ng gives them: word starts, lengths without punctuation.
  const std::vector<WordTiming> words = {{1, 4, 0}, {9, 3, 300}, {13, 4, 500}, {20, 4, 1500}, {26, 7, 1800},
                                         {35, 4, 2300}};
  const TimedText chunk{text, words, 0, 3000};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_EQ(cues.size(), 2u);
  EXPECT_EQ(cues[0], (SubtitleCue{0, 1500, "\"Wait,\" she said."}));
  EXPECT_EQ(cues[1], (SubtitleCue{1500, 3000, "Then (quietly) left…"}));
}

TEST(Subtitles, UntimedWordsJoinTheirNeighbours) {
  // espeak-ng speaks "a" together with "bright" and times only the latter.
  const std::string text = "It was a bright cold day. A clock struck.";
  const std::vector<WordTiming> words = {{0, 2, 100}, {3, 3, 300}, {9, 6, 600}, {16, 4, 900}, {21, 3, 1200},
                                         {28, 5, 1800}, {34, 6, 2100}};
  const TimedText chunk{text, words, 0, 3000};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_EQ(cues.size(), 2u);
  EXPECT_EQ(cues[0], (SubtitleCue{100, 1800, "It was a bright cold day."}));
  // The untimed "A" opens the second sentence: it is shown with "clock".
  EXPECT_EQ(cues[1], (SubtitleCue{1800, 3000, "A clock struck."}));

  // No timings at all: the text still shows, over the whole chunk.
  const TimedText untimed{"Nothing was timed here.", {}, 500, 1000};
  const auto plain = subtitle_cues({&untimed, 1});
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0], (SubtitleCue{500, 1500, "Nothing was timed here."}));
}

TEST(Subtitles, DoesNotBreakAfterTitlesInitialsOrBeforeLowerCase) {
  const std::string text = "Mr. Smith met J. Doe at 3 p.m. today. They talked.";
  const auto words = every_word(text, 0, 200);
  const TimedText chunk{text, words, 0, 2500};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_EQ(cues.size(), 2u);
  EXPECT_EQ(cues[0].text, "Mr. Smith met J. Doe at 3 p.m. today.");
  EXPECT_EQ(cues[1].text, "They talked.");
}

TEST(Subtitles, NeverCutsAWordTimedInTwoPlaces) {
  // espeak-ng may time "2021" inside "3/4/2021"; neither a cue nor a line ends there.
  const std::string text = "one two three four five 3/4/2021";
  const std::vector<WordTiming> words = {{0, 3, 0},     {4, 3, 1000},  {8, 5, 2000},
                                         {14, 4, 3000}, {19, 4, 4000}, {24, 3, 5000}, {28, 4, 5500}};
  const TimedText chunk{text, words, 0, 7000};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_EQ(cues.size(), 2u);
  EXPECT_EQ(cues[0], (SubtitleCue{0, 5000, "one two three four five"}));
  EXPECT_EQ(cues[1], (SubtitleCue{5000, 7000, "3/4/2021"}));

  const std::string a(30, 'a');
  const std::string lines = a + " 12/05/2021 " + a;  // the evenest split would be inside the date
  const std::vector<WordTiming> line_words = {{0, 30, 0}, {31, 6, 500}, {37, 4, 700}, {42, 30, 900}};
  const TimedText line_chunk{lines, line_words, 0, 2000};
  const auto line_cues = subtitle_cues({&line_chunk, 1});
  ASSERT_EQ(line_cues.size(), 1u);
  EXPECT_EQ(line_cues[0].text, a + "\n12/05/2021 " + a);
}

TEST(Subtitles, BreaksAtCjkSentenceEndsWithoutSpaces) {
  const std::string text = "今天天气很好。我们去公园吧！";  // 3 bytes per code point
  const std::vector<WordTiming> words = {{0, 6, 0}, {6, 6, 400}, {12, 6, 800}, {21, 6, 1500}, {27, 6, 1900},
                                         {33, 9, 2300}};
  const TimedText chunk{text, words, 0, 3000};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_EQ(cues.size(), 2u);
  EXPECT_EQ(cues[0], (SubtitleCue{0, 1500, "今天天气很好。"}));
  EXPECT_EQ(cues[1], (SubtitleCue{1500, 3000, "我们去公园吧！"}));
}

TEST(Subtitles, NoCueLastsLongerThanSixSeconds) {
  // Slow speech without punctuation: one word a second.
  const std::string text = "one two three four five six seven eight nine ten eleven twelve";
  const auto words = every_word(text, 0, 1000);
  const TimedText chunk{text, words, 0, 12'500};
  const auto cues = subtitle_cues({&chunk, 1});
  ASSERT_GE(cues.size(), 3u);
  expect_well_formed(cues, 12'500);
  EXPECT_EQ(joined_text(cues), text);

  // A long pause after the last word: the cue does not stay on screen through it.
  const std::vector<WordTiming> hello = {{0, 5, 0}};
  const TimedText pause{"Hello.", hello, 0, 20'000};
  const auto alone = subtitle_cues({&pause, 1});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].end_ms, kSubtitleMaxCueMs);
}

TEST(Subtitles, CutsAWordLongerThanALine) {
  const std::string url = "https://example.com/" + std::string(100, 'a') + " is the address.";
  const std::vector<WordTiming> words = {{0, 120, 0}, {121, 2, 3000}, {124, 3, 3200}, {128, 7, 3400}};
  const TimedText chunk{url, words, 0, 4000};
  const auto cues = subtitle_cues({&chunk, 1});
  expect_well_formed(cues, 4000);
  // Nothing lost: the cues hold the text's characters in order, the address cut into line-long pieces.
  std::string characters;
  for (const auto& c : cues) {
    for (const char ch : c.text) {
      if (ch != '\n' && ch != ' ') characters += ch;
    }
  }
  EXPECT_EQ(characters, "https://example.com/" + std::string(100, 'a') + "istheaddress.");
  EXPECT_EQ(lines_of(cues.front().text).front(), url.substr(0, 42));
}

TEST(Subtitles, EscapesMarkupInWebVttOnly) {
  const std::string text = "Tom & Jerry <3 --> fun";
  const auto words = every_word(text, 0, 200);
  const TimedText chunk{text, words, 0, 2000};
  EXPECT_EQ(render_webvtt({&chunk, 1}),
            "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nTom &amp; Jerry &lt;3 --&gt; fun\n\n");
  EXPECT_EQ(render_srt({&chunk, 1}), "1\n00:00:00,000 --> 00:00:02,000\nTom & Jerry <3 --> fun\n\n");
}

TEST(Subtitles, EmptyInputGivesAnEmptyValidFile) {
  EXPECT_EQ(render_srt({}), "");
  EXPECT_EQ(render_webvtt({}), "WEBVTT\n\n");
  const TimedText blank{" \n ", {}, 0, 500};
  EXPECT_EQ(render_srt({&blank, 1}), "");
  EXPECT_EQ(render_webvtt({&blank, 1}), "WEBVTT\n\n");
}

TEST(Subtitles, BadTimingsStillGiveOrderedCuesInsideTheTrack) {
  // Timings past the chunk's end, going backwards, out of the text; offsets that overlap.
  const std::string a = "First part. Second part.";
  const std::string b = "Third part here.";
  const std::vector<WordTiming> wa = {{0, 5, 900}, {6, 4, 100}, {12, 6, 5000}, {19, 4, 50}, {400, 3, 10}};
  const std::vector<WordTiming> wb = {{0, 5, 0}, {6, 4, 0}, {11, 4, 0}};
  const TimedText chunks[] = {{a, wa, 0, 1000}, {b, wb, 800, 700}};
  const auto cues = subtitle_cues(chunks);
  expect_well_formed(cues, 1500);
  EXPECT_EQ(joined_text(cues), a + " " + b);
}

TEST(Subtitles, FollowRealSpeechAcrossChunks) {
  // The whole path: espeak-ng timings, finished chunks, offsets = the previous chunks' lengths.
  const std::string texts[] = {
      "The harbour town woke slowly that morning. Fishing boats rocked against the old stone pier, and a thin "
      "mist hung over the water while the first shops opened their shutters.",
      "It was a bright cold day in April, and the clocks were striking thirteen."};
  EspeakEngine engine;
  std::vector<Audio> audio;
  for (const auto& text : texts) {
    SpeechRequest request;
    request.text = text;
    request.espeak_voice = "en-us";
    auto pcm = engine.synthesize_pcm(request);
    ASSERT_TRUE(pcm) << pcm.error().detail;
    auto finished = finish_chunk(*pcm);
    ASSERT_TRUE(finished) << finished.error().detail;
    audio.push_back(std::move(*finished));
  }
  const TimedText chunks[] = {{texts[0], audio[0].words, 0, audio[0].duration_ms},
                              {texts[1], audio[1].words, audio[0].duration_ms, audio[1].duration_ms}};
  const auto cues = subtitle_cues(chunks);
  const auto track_end = audio[0].duration_ms + audio[1].duration_ms;
  ASSERT_GE(cues.size(), 4u);
  expect_well_formed(cues, track_end);
  EXPECT_EQ(joined_text(cues), texts[0] + " " + texts[1]);
  EXPECT_EQ(cues.front().text, "The harbour town woke slowly that morning.");
  EXPECT_EQ(cues.back().end_ms, track_end);
  // The second chunk's first cue starts when its first word is heard: after the first chunk.
  const auto second = std::find_if(cues.begin(), cues.end(), [](const auto& c) { return c.text.starts_with("It was"); });
  ASSERT_NE(second, cues.end());
  EXPECT_GE(second->start_ms, audio[0].duration_ms);
  EXPECT_LT(second->start_ms, audio[0].duration_ms + 300);
}

TEST(SubtitlesEstimated, WebVttSaysSoOnlyWhenAChunkWasEstimated) {
  const std::vector<WordTiming> words{{0, 5, 0}, {6, 5, 500}};
  TimedText chunk{"Hello world.", words, 0, 1000};
  const std::vector<TimedText> measured{chunk};
  EXPECT_EQ(render_webvtt(measured).find("NOTE"), std::string::npos);
  chunk.estimated = true;
  const std::vector<TimedText> estimated{chunk};
  EXPECT_EQ(render_webvtt(estimated).rfind("WEBVTT\n\nNOTE word timings: estimated\n\n", 0), 0U);
  EXPECT_EQ(render_srt(estimated), render_srt(measured));
}

}  // namespace
}  // namespace mediagen::engines
