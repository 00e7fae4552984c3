#pragma once
// Upstream provider engines: a service's speech (and ElevenLabs' sound effects and music) made by
// a provider's HTTP API instead of an embedded engine.
//
// Shapes
//   openai      POST {url}/audio/speech {model, input, voice, response_format: "mp3", speed} -> audio
//               bytes (OpenAI, Kokoro-FastAPI, openedai-speech); voices from GET {url}/audio/voices
//               ({"voices": [...]} of ids or objects) where the server has it; key as Bearer.
//   elevenlabs  POST {url}/v1/text-to-speech/{voice}/with-timestamps -> {audio_base64, alignment};
//               POST {url}/v1/sound-generation and {url}/v1/music -> audio bytes; GET {url}/v1/voices;
//               key in xi-api-key.
//
// Calls run on the caller's thread (a worker; never an I/O thread) with libcurl: a connect and a
// total timeout, and a cap on the answer's size. Failures map to the chunk outcomes:
//   400/422 whose error names the content (policy, moderation, safety) -> policy (policy_flagged);
//   401/403 -> technical, reason upstream_unauthorized (operator-visible; a log line and a metric);
//   429, 5xx, timeouts, refused or reset connections -> retried with exponential backoff and full
//     jitter (a Retry-After up to max_retry_after is waited out), then technical, reason
//     upstream_unavailable;
//   other 4xx -> technical, reason upstream_rejected; audio that does not decode or whose length is
//     implausible for the text -> technical, reason upstream_bad_audio.
// Per upstream (service and URL) a cap on requests in flight and a circuit breaker: after
// breaker_failures calls in a row that ended unavailable or unauthorized it opens for breaker_open;
// while open every call fails at once (reason upstream_unavailable, no request sent); then one probe
// is let through, and its success closes it.
//
// Audio. The upstream's answer is decoded by FFmpeg (audio_intake.hpp, type judged by content) to
// 24 kHz mono PCM, checked, and handed back as PCM: the caller finishes it like espeak's (loudness,
// fades, MP3). Plausible speech lasts between 25 ms and 400 ms per code point of text (plus 5 s);
// a prompt's audio between a quarter of and twice the asked duration (plus 2 s).
// Word timings: ElevenLabs' character alignment mapped to words; otherwise estimated from the text
// (each word's share of the audio in proportion to its length) and marked as estimated.
//
// Secrets: the key is read at each call from the named environment variable or file; it is sent
// only in its header and never appears in a failure's detail, a log line or a metric.
//
// Thread safety: every member may be called from any number of threads at once.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/core/task_type.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/engines/prompt.hpp"

namespace mediagen::engines {

enum class UpstreamKind { openai, elevenlabs };
std::optional<UpstreamKind> parse_upstream_kind(std::string_view engine);

struct UpstreamTarget {
  UpstreamKind kind = UpstreamKind::openai;
  std::string service;   // the service key: metrics and logs
  std::string url;       // base URL, no trailing slash
  std::string model;
  std::string key_env;   // where the key is; both empty: no key sent
  std::string key_file;
  std::string voice;     // the upstream's voice id (speech)
};

struct UpstreamOptions {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{120000};
  std::size_t max_response_bytes = 64 * 1024 * 1024;
  int max_attempts = 3;                          // 1 + retries
  std::chrono::milliseconds backoff_base{250};   // attempt n waits up to base * 2^n
  std::chrono::milliseconds max_retry_after{5000};
  int max_in_flight = 4;                         // per upstream
  int breaker_failures = 5;
  std::chrono::milliseconds breaker_open{30000};
  // The breaker's clock and the backoff's sleep; tests replace them.
  std::function<std::chrono::steady_clock::time_point()> now = [] { return std::chrono::steady_clock::now(); };
  std::function<void(std::chrono::milliseconds)> sleep;
};

struct UpstreamVoice {
  std::string id;
  std::string name;
  std::string language;  // ISO 639-1 when known, else empty
  std::string gender;    // male | female | empty
};

namespace upstream_detail {
class Guard;
struct HttpCall;
struct HttpAnswer;
}  // namespace upstream_detail

class Upstreams {
 public:
  explicit Upstreams(UpstreamOptions options = {});
  ~Upstreams();
  Upstreams(const Upstreams&) = delete;
  Upstreams& operator=(const Upstreams&) = delete;

  // Speech PCM (24 kHz mono) with word timings on its time line (words_estimated when made up).
  boost::system::result<SpeechPcm, EngineFailure> speak(const UpstreamTarget& target, const SpeechRequest& request);
  // A sound effect ("sfx") or music ("music") as PCM; ElevenLabs only.
  boost::system::result<SpeechPcm, EngineFailure> generate(const UpstreamTarget& target, TaskType task_type,
                                                          const PromptRequest& request);
  // The upstream's voice catalogue; an empty list when it has none to give (openai shape, 404).
  boost::system::result<std::vector<UpstreamVoice>, EngineFailure> voices(const UpstreamTarget& target);

  // Prometheus text: mediagen_upstream_requests_total{service,outcome}, mediagen_upstream_circuit_open{service}.
  void render_metrics(std::string& out) const;

  // The server is stopping: calls under way are abandoned, backoff waits end, and no new request
  // is sent (each fails as technical, reason upstream_unavailable). Irreversible.
  void stop();

 private:
  // One request with the guard, the retries and the failure mapping; a 2xx answer or a failure.
  boost::system::result<upstream_detail::HttpAnswer, EngineFailure> call(const UpstreamTarget& target,
                                                                         const upstream_detail::HttpCall& request);
  upstream_detail::Guard& guard(const UpstreamTarget& target);
  void count(const std::string& service, std::string_view outcome);

  // Waits out a backoff unless stop() comes first.
  void pause(std::chrono::milliseconds wait);

  UpstreamOptions options_;
  std::atomic<bool> stopping_{false};
  std::mutex pause_mutex_;
  std::condition_variable pause_cv_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<upstream_detail::Guard>, std::less<>> guards_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> outcomes_;
};

}  // namespace mediagen::engines

// Parsers of what upstream providers send back (bytes from outside: each has a fuzz target in
// tests/fuzz) and the word timings made from it. Pure functions; none throws, whatever the input.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


namespace mediagen::engines {

// ElevenLabs' answer of /with-timestamps: the audio and, per character of the text, when it starts.
struct TimedSpeech {
  std::string audio;                    // decoded from audio_base64
  std::vector<std::string> characters;  // alignment.characters (one code point each, normally)
  std::vector<double> starts_seconds;   // alignment.character_start_times_seconds
};
// nullopt when the body is not such an object or audio_base64 is missing or not base64; a
// missing or malformed alignment leaves the two lists empty.
std::optional<TimedSpeech> parse_timed_speech(std::string_view json);

// Words of `text` timed by the character alignment: a word starts at its first character's start
// time (ms). nullopt when the characters do not spell `text` (then the caller estimates).
std::optional<std::vector<WordTiming>> words_from_alignment(std::string_view text,
                                                            const std::vector<std::string>& characters,
                                                            const std::vector<double>& starts_seconds);

// Words of `text` spread over duration_ms, each taking a share in proportion to its code points
// plus one (the pause after it). Byte offsets into text; start times non-decreasing.
std::vector<WordTiming> estimate_words(std::string_view text, std::int64_t duration_ms);

// Voice lists: the openai shape ({"voices": ["id", ...]} or {"voices": [{"id"|"voice_id"|"name", ...}]}
// or a bare array, or {"data": [...]}) and ElevenLabs' ({"voices": [{"voice_id", "name",
// "labels": {"gender", "language"}}]}). Entries without a usable id are skipped; at most 1,000.
std::vector<UpstreamVoice> parse_openai_voices(std::string_view json);
std::vector<UpstreamVoice> parse_elevenlabs_voices(std::string_view json);

// What an error body says, for logs and the chunk's detail: the message of the openai
// ({"error": {"message", "code", "type"}}) or ElevenLabs ({"detail": {"status", "message"}} or
// {"detail": "..."}) shape, else the start of the body; at most 200 bytes, cut at a code point.
std::string error_summary(std::string_view body);

// True when an error body refuses the content itself (its code, type, status or message names
// policy, moderation, safety, flagged content or a content refusal).
bool is_content_refusal(std::string_view body);

}  // namespace mediagen::engines
