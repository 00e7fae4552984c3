#pragma once
// The embedded speech engine: libespeak-ng for speech, LAME for MP3.
//
// Processes. libespeak-ng keeps process-global state and is not thread-safe, so speech runs in
// helper processes (mediagen-espeak, built and installed next to the server), each with its
// own espeak-ng: a caller takes an idle helper or starts one, sends the text, and gets PCM and
// word events back over a socket pair. N callers speak in N helpers at once. MP3 encoding runs
// in the CALLER's thread. A helper that hangs (2 minutes), exits or breaks the frames is killed
// and its job fails as a technical failure; the next job starts a fresh one, so a crash in
// espeak-ng ends one job, not the server.
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

#include "mediagen/engines/audio.hpp"

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

// The espeak-ng voices and variants installed on this machine, for building the voice
// catalogues. A voice is a language voice ("English (America)", identifier "gmw/en-US"); a
// variant changes its timbre ("m3", "f2", "Alicia"). A catalogue voice is a voice plus an
// optional variant: SpeechRequest{.espeak_voice = voice.identifier, .variant = variant.key}.
//
// Both lists are read once, at the first use, from an espeak-ng started in this process for
// them alone, and then served from memory, so they are safe to call at any time, from any
// thread, also while synthesis runs. They are sorted by identifier, so the order is stable
// across runs. They throw std::runtime_error when libespeak-ng or a first speech helper cannot
// start (no data files, no mediagen-espeak next to the executable).
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::engines {

enum class EspeakGender { unknown, male, female };
std::string_view to_string(EspeakGender gender);  // "unknown", "male", "female"

struct EspeakLanguage {
  std::string tag;  // lower case BCP 47 as espeak-ng writes it: "en-us", "en", "cmn", "pt-br"
  int priority;     // lower = the voice is a better choice for this language
};

struct EspeakVoiceInfo {
  std::string name;        // "English (America)"
  std::string identifier;  // "gmw/en-US": the file under espeak-ng-data/voices; unique and stable
  std::vector<EspeakLanguage> languages;  // in espeak-ng's order; the first is the voice's own
  EspeakGender gender;
  int age;  // 0 = not given
};

struct EspeakVariantInfo {
  std::string name;        // "Alicia", "female2", "Mr_Serious"
  std::string key;         // "Alicia", "f2", "Mr serious": what SpeechRequest::variant takes
  std::string identifier;  // "!v/Alicia"
  EspeakGender gender;
  int age;
};

std::vector<EspeakVoiceInfo> list_espeak_voices();
std::vector<EspeakVariantInfo> list_espeak_variants();

}  // namespace mediagen::engines

// Subtitles (SRT and WebVTT) for a stitched speech track, from the chunks' texts and word timings.
//
// Input: one TimedText per chunk, in track order. offset_ms is where the chunk starts in the
// track (the sum of the previous chunks' MP3 durations); words are the engine's timings on the
// chunk's own MP3 time line (Audio::words); text_offset/text_length are byte positions in text.
//
// Cues. A cue holds consecutive words of one chunk and never crosses a chunk. A new cue starts
// after a sentence end (. ! ? … and the CJK 。！？, also before closing quotes or brackets; not
// after an initial or a title such as "Mr.", nor when the next word is in lower case), when
// the text would no longer fit in kSubtitleMaxLines lines of kSubtitleLineCodePoints code points
// (lines break at spaces, or between words of a script written without spaces), or when it would
// last longer than kSubtitleMaxCueMs. A word longer than a line is cut into line-long pieces.
// The cue text is the chunk's own text from the first word to the end of the last (punctuation
// kept), whitespace runs collapsed to one space. A word espeak-ng did not time ("a" spoken with
// the next word) is shown with the next timed word; text after the last timed word joins the last
// cue; a chunk with no timings at all is spread evenly over its duration.
//
// Times. A cue starts when its first word starts and ends when the next cue of the chunk starts,
// or at the chunk's end (offset_ms + duration_ms), but lasts at most kSubtitleMaxCueMs. Cues never
// overlap, never go backwards and never pass the end of the track (the last chunk's end).
//
// Pure functions: no I/O, never fail; text that is not valid UTF-8 is treated byte by byte.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>


namespace mediagen::engines {

inline constexpr int kSubtitleLineCodePoints = 42;
inline constexpr int kSubtitleMaxLines = 2;
inline constexpr std::int64_t kSubtitleMaxCueMs = 6000;

struct TimedText {
  std::string_view text;
  std::span<const WordTiming> words;
  std::int64_t offset_ms = 0;
  std::int64_t duration_ms = 0;
  bool estimated = false;  // the words' times were estimated from the text, not given by the engine
};

struct SubtitleCue {
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
  std::string text;  // UTF-8, one or two lines joined by '\n', never empty

  bool operator==(const SubtitleCue&) const = default;
};

// The cues of the whole track, in order.
std::vector<SubtitleCue> subtitle_cues(std::span<const TimedText> chunks);

// "1\n00:00:01,234 --> 00:00:02,345\ntext\n\n" per cue; "" when there are no cues.
std::string render_srt(std::span<const TimedText> chunks);

// When a chunk's timings were estimated, a NOTE block after the header says so
// ("NOTE word timings: estimated"), so a reader knows the cues follow the text's length, not the voice.
// "WEBVTT\n\n" then "00:00:01.234 --> 00:00:02.345\ntext\n\n" per cue, with & < > escaped.
std::string render_webvtt(std::span<const TimedText> chunks);

// The timings of the whole track as data (result.timings.json), written piece by piece through
// `write` (memory: one chunk's characters; false from `write` stops):
//   {"alignment": {"characters", "character_start_times_seconds", "character_end_times_seconds"},
//    "words": [{"text", "start", "end"}], "estimated": true (only when some chunk's word timings
//    were estimated from its text)}
// The characters and their times are char_timings.hpp's (the chunks joined by one space); the
// words are the spoken text split on white space, each from its first character's start to its
// last one's end. Seconds from the start of the track, to the millisecond. False when `write` was.
bool write_timings_json(std::span<const TimedText> chunks, const std::function<bool(std::string_view)>& write);

}  // namespace mediagen::engines

// One chunk of speech finished as audio.hpp describes (gain, fades, MP3).
namespace mediagen::engines {

// Normalise, fade, encode. The words move onto the MP3's time line (start_ms + the stream's
// delay_ms); duration_ms and sample_rate are the MP3's.
boost::system::result<Audio, EngineFailure> finish_chunk(SpeechPcm pcm, const FinishOptions& options = {});

}  // namespace mediagen::engines
