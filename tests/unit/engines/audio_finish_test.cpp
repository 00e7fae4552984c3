// Finishing chunks: each chunk at one loudness, silent at both ends, so stitched chunks neither
// jump in level nor click at the joins.
#include "mediagen/engines/audio.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/engines/speech.hpp"
#include "unit/engines/mp3_decode.hpp"

namespace mediagen::engines {
namespace {

using testing::decode_mp3;

constexpr int kRate = 22050;

// A sine whose RMS is rms_dbfs (0 dBFS = RMS of a full-scale square wave).
std::vector<std::int16_t> sine(double rms_dbfs, double seconds, double hz = 440.0) {
  const double amplitude = 32768.0 * std::sqrt(2.0) * std::pow(10.0, rms_dbfs / 20.0);
  std::vector<std::int16_t> pcm(static_cast<std::size_t>(kRate * seconds));
  for (std::size_t i = 0; i < pcm.size(); ++i) {
    pcm[i] = static_cast<std::int16_t>(
        std::lround(amplitude * std::sin(2 * std::numbers::pi * hz * static_cast<double>(i) / kRate)));
  }
  return pcm;
}

SpeechPcm speech_pcm(std::vector<std::int16_t> samples) {
  return SpeechPcm{.samples = std::move(samples), .sample_rate = kRate, .words = {}};
}

int max_abs(std::span<const std::int16_t> pcm) {
  int m = 0;
  for (const auto s : pcm) m = std::max(m, std::abs(static_cast<int>(s)));
  return m;
}

// Largest sample-to-sample step in decoded[from, to).
int max_step(const std::vector<std::int16_t>& decoded, std::size_t from, std::size_t to) {
  int m = 0;
  for (std::size_t i = std::max<std::size_t>(from, 1); i < std::min(to, decoded.size()); ++i) {
    m = std::max(m, std::abs(decoded[i] - decoded[i - 1]));
  }
  return m;
}

TEST(AudioFinish, MeasuresAGatedRms) {
  EXPECT_NEAR(*gated_rms_dbfs(sine(-30.0, 1.0), kRate), -30.0, 0.05);
  // Pauses do not count: the same tone with as much silence again measures the same.
  auto with_pause = sine(-30.0, 1.0);
  with_pause.resize(with_pause.size() * 2, 0);
  EXPECT_NEAR(*gated_rms_dbfs(with_pause, kRate), -30.0, 0.05);
}

TEST(AudioFinish, NormalizesAQuietSineToTheTarget) {
  auto pcm = sine(-30.0, 1.0);
  EXPECT_NEAR(normalization_gain_db(pcm, kRate, {}), 10.0, 0.05);
  apply_gain(pcm, normalization_gain_db(pcm, kRate, {}));
  EXPECT_NEAR(*gated_rms_dbfs(pcm, kRate), -20.0, 0.5);

  // And end to end: the MP3 a listener gets is at the target too, less the half decibel or so
  // that LAME at 64 kbit/s takes from a pure tone (the same for every chunk, so joins stay level).
  auto audio = finish_chunk(speech_pcm(sine(-30.0, 1.0)));
  ASSERT_TRUE(audio) << audio.error().detail;
  const auto decoded = decode_mp3(audio->mp3);
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_NEAR(*gated_rms_dbfs(decoded.samples, kRate), -20.0, 1.0);
}

TEST(AudioFinish, TurnsALoudSineDown) {
  auto pcm = sine(-8.0, 1.0);
  apply_gain(pcm, normalization_gain_db(pcm, kRate, {}));
  EXPECT_NEAR(*gated_rms_dbfs(pcm, kRate), -20.0, 0.5);
}

TEST(AudioFinish, RaisesAtMostTheMaximumGain) {
  auto pcm = sine(-50.0, 1.0);
  EXPECT_NEAR(normalization_gain_db(pcm, kRate, {}), 12.0, 1e-9);
  apply_gain(pcm, normalization_gain_db(pcm, kRate, {}));
  EXPECT_NEAR(*gated_rms_dbfs(pcm, kRate), -38.0, 0.5);
}

TEST(AudioFinish, TheCeilingLimitsTheGainSoNothingClips) {
  // A quiet tone with one loud click: the +10 dB the tone asks for would push the click past full
  // scale, so the gain stops where the click reaches the ceiling.
  auto pcm = sine(-30.0, 1.0);
  pcm[pcm.size() / 2] = 20000;
  const double gain = normalization_gain_db(pcm, kRate, {});
  EXPECT_LT(gain, 10.0);
  apply_gain(pcm, gain);
  const double peak = *peak_dbfs(pcm);
  EXPECT_LE(peak, -1.0 + 1e-3);
  EXPECT_GT(peak, -1.1);
  EXPECT_LT(max_abs(pcm), 32767);

  // A loud sine asked to reach -3 dBFS RMS would peak at 0 dBFS: the ceiling holds it at -1.
  auto loud = sine(-15.0, 1.0);
  const FinishOptions hot{.target_dbfs = -3.0};
  apply_gain(loud, normalization_gain_db(loud, kRate, hot));
  EXPECT_LE(*peak_dbfs(loud), -1.0 + 1e-3);
  EXPECT_GT(*peak_dbfs(loud), -1.1);
  EXPECT_LT(*gated_rms_dbfs(loud, kRate), -3.5);
}

TEST(AudioFinish, FadesBothEndsToZero) {
  std::vector<std::int16_t> pcm(kRate, 20000);  // a constant: the fades' shape shows directly
  apply_fades(pcm, kRate, 10, 10);
  const std::size_t fade = kRate / 100;  // 10 ms
  EXPECT_EQ(pcm.front(), 0);
  EXPECT_EQ(pcm.back(), 0);
  EXPECT_LT(std::abs(pcm[1]), 20);
  EXPECT_LT(std::abs(pcm[pcm.size() - 2]), 20);
  EXPECT_NEAR(pcm[fade / 2], 10000, 100);  // half way up the raised cosine
  for (std::size_t i = 1; i < fade; ++i) {
    EXPECT_LE(pcm[i - 1], pcm[i]) << i;
  }
  EXPECT_EQ(pcm[fade], 20000);
  EXPECT_EQ(pcm[pcm.size() - 1 - fade], 20000);

  // A chunk shorter than both fades is faded to its middle, never out of range.
  std::vector<std::int16_t> tiny(10, 1000);
  apply_fades(tiny, kRate, 10, 10);
  EXPECT_EQ(tiny.front(), 0);
  EXPECT_EQ(tiny.back(), 0);
}

TEST(AudioFinish, LeavesSilenceSilent) {
  std::vector<std::int16_t> zeros(kRate, 0);
  EXPECT_FALSE(gated_rms_dbfs(zeros, kRate));
  EXPECT_FALSE(peak_dbfs(zeros));
  EXPECT_EQ(normalization_gain_db(zeros, kRate, {}), 0.0);
  // Faint noise below the gate is not a voice: no gain either.
  std::vector<std::int16_t> hiss(kRate);
  for (std::size_t i = 0; i < hiss.size(); ++i) hiss[i] = static_cast<std::int16_t>(i % 7) - 3;
  EXPECT_EQ(normalization_gain_db(hiss, kRate, {}), 0.0);
  EXPECT_FALSE(gated_rms_dbfs(std::span<const std::int16_t>{}, kRate));

  auto audio = finish_chunk(speech_pcm(zeros));
  ASSERT_TRUE(audio) << audio.error().detail;
  const auto decoded = decode_mp3(audio->mp3);
  ASSERT_TRUE(decoded.ok);
  EXPECT_LE(max_abs(decoded.samples), 2);
}

TEST(AudioFinish, MovesWordsOntoTheMp3TimeLine) {
  auto pcm = speech_pcm(sine(-20.0, 1.0));
  pcm.words = {{0, 5, 0}, {6, 5, 480}};
  auto audio = finish_chunk(pcm);
  ASSERT_TRUE(audio) << audio.error().detail;
  ASSERT_EQ(audio->words.size(), 2u);
  EXPECT_EQ(audio->words[0].start_ms, 50);  // the stream's delay at 22,050 Hz
  EXPECT_EQ(audio->words[1].start_ms, 530);
  EXPECT_EQ(audio->words[1].text_offset, 6u);
  EXPECT_EQ(audio->sample_rate, kRate);
  EXPECT_EQ(audio->duration_ms, *mp3_duration_ms(audio->mp3));
}

TEST(AudioFinish, RefusesWhatTheEncoderRefuses) {
  auto pcm = speech_pcm(sine(-20.0, 0.1));
  pcm.sample_rate = 1000;
  auto audio = finish_chunk(pcm);
  ASSERT_FALSE(audio);
  EXPECT_EQ(audio.error().kind, FailureKind::technical);
}

// --- real speech ----------------------------------------------------------------------------

SpeechRequest english(std::string text, VoiceSettings settings = {}) {
  SpeechRequest r;
  r.text = std::move(text);
  r.espeak_voice = "en-us";
  r.settings = settings;
  return r;
}

struct Joined {
  std::vector<std::int16_t> samples;
  std::int64_t decoded_ms = 0;
  std::size_t first_pcm_end = 0;  // where the first chunk's PCM ends in the decoded track
  std::size_t join = 0;           // first decoded sample of the second chunk
};

Joined stitch(const SpeechPcm& a, const SpeechPcm& b, const FinishOptions& options) {
  auto fa = finish_chunk(a, options);
  auto fb = finish_chunk(b, options);
  EXPECT_TRUE(fa && fb);
  if (!fa || !fb) return {};
  const std::string_view parts[] = {fa->mp3, fb->mp3};
  auto track = concat_mp3(parts);
  EXPECT_TRUE(track) << track.error().detail;
  if (!track) return {};
  const auto decoded = decode_mp3(*track);
  EXPECT_TRUE(decoded.ok) << decoded.error;
  Joined out;
  out.samples = decoded.samples;
  out.decoded_ms = decoded.duration_ms();
  out.first_pcm_end = 1105 + a.samples.size();  // the encoder's documented delay at 22,050 Hz
  out.join = static_cast<std::size_t>(scan_mp3(fa->mp3)->decoded_samples);
  // The track is as long as its chunks, within one frame (576 samples = 26 ms).
  EXPECT_NEAR(static_cast<double>(out.decoded_ms), static_cast<double>(fa->duration_ms + fb->duration_ms), 27.0);
  EXPECT_EQ(static_cast<std::int64_t>(decoded.samples.size()),
            scan_mp3(fa->mp3)->decoded_samples + scan_mp3(fb->mp3)->decoded_samples);
  return out;
}

// A join counts as a click when one sample step near it is this large (-38 dBFS of full scale);
// normalised speech steps by far more inside words, but the joins sit in silence.
constexpr int kClickStep = 400;

TEST(AudioFinish, StitchedSpeechChunksJoinWithoutAClick) {
  EspeakEngine engine;
  auto a = engine.synthesize_pcm(english("The first chunk ends here."));
  auto b = engine.synthesize_pcm(english("And the second one follows."));
  ASSERT_TRUE(a && b) << (a ? b.error().detail : a.error().detail);
  const auto joined = stitch(*a, *b, {});
  ASSERT_FALSE(joined.samples.empty());
  EXPECT_LT(max_step(joined.samples, joined.first_pcm_end - 32, joined.join + 32), kClickStep);
  // Speech is really there on both sides of the join.
  EXPECT_GT(max_step(joined.samples, 0, joined.join), 4 * kClickStep);
  EXPECT_GT(max_step(joined.samples, joined.join, joined.samples.size()), 4 * kClickStep);
}

TEST(AudioFinish, TheFadeIsWhatRemovesTheClickOfACutInsideAWord) {
  // The contrast that shows the click measure can fail: a chunk cut at its loudest sample, in the
  // middle of a word, clicks at the join unless it is faded.
  EspeakEngine engine;
  auto a = engine.synthesize_pcm(english("Wonderful weather we are having."));
  auto b = engine.synthesize_pcm(english("Indeed it is."));
  ASSERT_TRUE(a && b);
  const auto middle = std::span<const std::int16_t>(a->samples).subspan(a->samples.size() / 4, a->samples.size() / 2);
  const auto loudest = std::max_element(middle.begin(), middle.end(),
                                        [](auto x, auto y) { return std::abs(x) < std::abs(y); });
  a->samples.resize(a->samples.size() / 4 + static_cast<std::size_t>(loudest - middle.begin()) + 1);
  a->words.clear();

  const auto cut = stitch(*a, *b, {.fade_in_ms = 0, .fade_out_ms = 0});
  const auto faded = stitch(*a, *b, {});
  ASSERT_FALSE(cut.samples.empty());
  ASSERT_FALSE(faded.samples.empty());
  const int cut_step = max_step(cut.samples, cut.first_pcm_end - 32, cut.join + 32);
  const int faded_step = max_step(faded.samples, faded.first_pcm_end - 32, faded.join + 32);
  EXPECT_GT(cut_step, kClickStep);
  EXPECT_LT(faded_step, kClickStep);
}

TEST(AudioFinish, ChunksOfDifferentVolumeEndAtOneLoudness) {
  EspeakEngine engine;
  const std::string text = "The quick brown fox jumps over the lazy dog.";
  auto quiet = engine.synthesize_pcm(english(text, {.use_speaker_boost = false}));  // volume 75
  auto loud = engine.synthesize_pcm(english(text, {.use_speaker_boost = true}));    // volume 100
  ASSERT_TRUE(quiet && loud);
  const double raw_difference = *gated_rms_dbfs(loud->samples, kRate) - *gated_rms_dbfs(quiet->samples, kRate);
  EXPECT_GT(raw_difference, 1.5) << "the engine's volumes differ, so the test can tell";

  auto fq = finish_chunk(*quiet);
  auto fl = finish_chunk(*loud);
  ASSERT_TRUE(fq && fl);
  const auto dq = decode_mp3(fq->mp3);
  const auto dl = decode_mp3(fl->mp3);
  ASSERT_TRUE(dq.ok && dl.ok);
  const double level_q = *gated_rms_dbfs(dq.samples, kRate);
  const double level_l = *gated_rms_dbfs(dl.samples, kRate);
  EXPECT_NEAR(level_q, level_l, 1.0);
  EXPECT_NEAR(level_l, -20.0, 1.0);
}

}  // namespace
}  // namespace mediagen::engines
