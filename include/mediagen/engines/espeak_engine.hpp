#pragma once
// The embedded speech engine: libespeak-ng for speech, LAME for MP3.
//
// Threads. libespeak-ng keeps process-global state and is not thread-safe, so every espeak-ng
// call of the process runs on ONE synthesis thread (started on first use, shared by all
// EspeakEngine objects and by list_espeak_voices). A caller hands it a job and blocks on a
// future; the espeak thread only turns text into PCM and word events (~20k characters per
// CPU-second). MP3 encoding, about three quarters of the CPU (performance anchors G7), runs in
// the CALLER's thread, so N workers encode in parallel while the one espeak thread feeds them.
// No lock is held while encoding. Measured on 2 cores: 2 workers give 1.87x the wall
// throughput of one (tests/bench/speech_bench.sh); the rest is lost when both workers wait for
// the espeak thread at once.
//
// Text. Passed as UTF-8 (espeakCHARS_UTF8) without espeakSSML and without espeakPHONEMES:
// nothing is interpreted as markup. "<b>bold</b>" is read as "b bold slash b" (espeak-ng does
// not voice '<' and '>' themselves), '&' as "and", '*' as "asterisk", parentheses as pauses.
// A sentence pause ends the text (espeakENDPAUSE, as the espeak-ng command does), so chunks
// cut at sentence boundaries join naturally.
//
// Refusals (all FailureKind::technical; a policy failure never comes from this engine):
//   - text empty or only whitespace: there is nothing to speak, and the chunker never sends
//     such a chunk, so getting one is a bug upstream. Silence would hide it and bill it.
//   - text not valid UTF-8, or holding a NUL character;
//   - unknown espeak_voice, unknown variant, a language_code no espeak-ng voice speaks;
//   - espeak-ng data missing, espeak-ng or LAME errors, more than 30 minutes of audio.
//
// Voice. espeak_voice is matched (case-insensitively) against, in order: a voice identifier
// ("gmw/en-US"), the identifier's file name ("en-US"), the voice name ("English (America)"),
// and a language tag ("en-us": the voice preferring that tag). variant is a variant key ("m3",
// "Alicia"; case-insensitive). language_code, when given, keeps the voice if the voice speaks
// that language ("en" with "en-us"), otherwise it selects espeak-ng's preferred voice for the
// language; the variant applies either way.
//
// Settings (espeak_parameters below): speed -> rate (175 wpm x speed); similarity_boost ->
// pitch (neutral 50 at the default 0.75; lower values lower the pitch, 1.0 raises it to 60);
// stability -> pitch range (higher = flatter: 75 at 0 .. 50 at the default 0.5 .. 25 at 1);
// use_speaker_boost -> volume (100 on, the default; 75 off). Unset fields take the defaults,
// which are espeak-ng's neutral values.
//
// Repeatability. The same request gives the same words, timings within a few milliseconds and
// the same length within a few milliseconds, but not identical bytes: espeak-ng draws the
// noise of unvoiced sounds from rand() and runs its pitch flutter on from call to call, and
// neither can be reset through its API.
//
// Output. 22,050 Hz mono (espeak-ng's native rate; no resampling, which would cost 2.3x in LAME,
// anchors G7/L2), MP3 CBR 64 kbit/s at LAME quality 5. Measured on 280 s of espeak-ng speech
// (CPU seconds, one core): 64k q3 (LAME's default) 0.87 s, 64k q5 0.74 s, 64k q7 0.42 s,
// 128k q3 0.66 s. 64 kbit/s halves the size of 128 kbit/s (about 480 kB per minute) and is ample
// for a 22 kHz mono voice; q5 is LAME's "good quality, fast" setting and costs 15% less than
// the default q3 at this bitrate. Against the raw `espeak-ng --stdout | lame` pipeline on the
// same text the engine uses 0.85x the CPU with the same LAME settings and 0.91x that of
// `lame -b 128` (tests/bench/speech_bench.sh).
//
// Word timings come from espeak-ng's word events (1-based code point positions, converted to
// byte offsets; see engines/speech_text.hpp for the clean-up). They are on the MP3's time line:
// espeak's audio position plus the stream's delay (Mp3Stream::delay_ms, 50 ms at 22,050 Hz).
// espeak-ng times nearly every word; a short word it speaks together with the next one
// (English "a", "the" in running speech) has no timing of its own, and a number or date is
// timed once, where it starts.
#include <cstdint>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/engines/engine.hpp"
#include "mediagen/engines/mp3.hpp"

namespace mediagen::engines {

// The espeak-ng parameters one request runs with.
struct EspeakParameters {
  int rate_wpm;     // espeakRATE, 80..450
  int pitch;        // espeakPITCH, 0..100, 50 = the voice's own
  int pitch_range;  // espeakRANGE, 0..100, 50 = the voice's own, 0 = monotone
  int volume;       // espeakVOLUME, 0..200, 100 = normal
};
EspeakParameters espeak_parameters(const VoiceSettings& settings);

// Speech as PCM, before encoding: for callers that encode themselves (stitching from PCM) or
// analyse the signal (voice search). Word start_ms are on the PCM's time line (sample 0 = 0 ms).
struct SpeechPcm {
  std::vector<std::int16_t> samples;  // mono, 16-bit
  int sample_rate = 0;
  std::vector<WordTiming> words;
  bool words_estimated = false;  // set by engines that estimate the timings from the text
};

struct EspeakEngineOptions {
  Mp3Options mp3{};  // 64 kbit/s, quality 5
};

class EspeakEngine final : public SpeechEngine {
 public:
  explicit EspeakEngine(EspeakEngineOptions options = {});

  boost::system::result<Audio, EngineFailure> synthesize(const SpeechRequest& request) override;
  boost::system::result<SpeechPcm, EngineFailure> synthesize_pcm(const SpeechRequest& request);

 private:
  EspeakEngineOptions options_;
};

}  // namespace mediagen::engines
