// Upstreams: the requests of the two shapes, the key's source, and the checks of the audio that
// comes back (see upstream.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/percent.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/codec.hpp"
#include "mediagen/engines/upstream.hpp"
#include "upstream_http.hpp"

namespace mediagen::engines {
namespace {

using nlohmann::json;
using upstream_detail::HttpCall;

constexpr int kUpstreamRate = 24000;  // Hz of the PCM handed back: a voice's band, an MP3 rate LAME takes

struct Key {
  std::string value;  // empty: none configured
};

// The key from its source, read at each call (so a rotated key needs no restart).
boost::system::result<Key, EngineFailure> read_key(const UpstreamTarget& t) {
  if (!t.key_env.empty()) {
    const char* v = std::getenv(t.key_env.c_str());
    if (!v || !*v) return EngineFailure::technical("upstream_unauthorized", "the key's variable " + t.key_env + " is not set");
    return Key{v};
  }
  if (!t.key_file.empty()) {
    std::ifstream in(t.key_file, std::ios::binary);
    std::string v(4096, '\0');
    in.read(v.data(), static_cast<std::streamsize>(v.size()));
    v.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
    while (!v.empty() && static_cast<unsigned char>(v.back()) <= ' ') v.pop_back();
    if (v.empty()) return EngineFailure::technical("upstream_unauthorized", "the key's file cannot be read or is empty");
    return Key{v};
  }
  return Key{};
}

// Whatever an upstream said goes into logs and the chunk's detail: never with the key in it (a
// provider may quote the key it refused). A refused key is the operator's to fix: logged here.
EngineFailure scrubbed(const UpstreamTarget& t, EngineFailure f, const Key& key) {
  if (key.value.size() >= 4) {
    for (auto at = f.detail.find(key.value); at != std::string::npos; at = f.detail.find(key.value)) {
      f.detail.replace(at, key.value.size(), "[redacted]");
    }
  }
  if (f.reason == "upstream_unauthorized") {
    log::warn("upstream refused the key", {{"service", t.service}, {"detail", f.detail}});
  }
  return f;
}

HttpCall request(const UpstreamTarget& t, const Key& key, std::string path, std::string method, std::string body) {
  HttpCall call{std::move(method), t.url + path, {}, std::move(body)};
  if (call.method == "POST") call.headers.push_back("Content-Type: application/json");
  if (!key.value.empty()) {
    call.headers.push_back(t.kind == UpstreamKind::openai ? "Authorization: Bearer " + key.value : "xi-api-key: " + key.value);
  }
  return call;
}

struct Bounds {
  std::int64_t min_ms;
  std::int64_t max_ms;
};

Bounds speech_bounds(std::string_view text) {
  const auto n = static_cast<std::int64_t>(count_code_points(text));
  return {25 * n, 400 * n + 5000};
}

// Decodes the upstream's audio and checks its length; the PCM at kUpstreamRate.
boost::system::result<SpeechPcm, EngineFailure> checked_pcm(std::string_view bytes, Bounds bounds) {
  IntakeLimits limits;
  limits.max_seconds = static_cast<double>(bounds.max_ms) / 1000.0 + 1.0;
  limits.max_input_bytes = 256 * 1024 * 1024;
  limits.max_packets = 10'000'000;
  limits.max_decode_time = std::chrono::milliseconds(60000);
  limits.output_rate = kUpstreamRate;
  auto audio = read_audio(bytes, limits);
  if (!audio) return EngineFailure::technical("upstream_bad_audio", "upstream audio: " + audio.error().detail);
  const auto ms = static_cast<std::int64_t>(std::llround(audio->seconds * 1000.0));
  if (audio->truncated || ms > bounds.max_ms || ms < bounds.min_ms) {
    return EngineFailure::technical("upstream_bad_audio", "upstream audio lasts " + std::to_string(ms) + " ms, outside " +
                                                              std::to_string(bounds.min_ms) + ".." +
                                                              std::to_string(bounds.max_ms) + " ms for this input");
  }
  SpeechPcm pcm;
  pcm.sample_rate = audio->sample_rate;
  pcm.samples.reserve(audio->samples.size());
  for (const float v : audio->samples) pcm.samples.push_back(static_cast<std::int16_t>(std::lrint(v * 32767.0F)));
  return pcm;
}

json voice_settings(const VoiceSettings& s) {
  json out = json::object();
  if (s.stability) out["stability"] = *s.stability;
  if (s.similarity_boost) out["similarity_boost"] = *s.similarity_boost;
  if (s.use_speaker_boost) out["use_speaker_boost"] = *s.use_speaker_boost;
  if (s.speed) out["speed"] = *s.speed;
  return out;
}

HttpCall speech_call(const UpstreamTarget& t, const Key& key, const SpeechRequest& r) {
  if (t.kind == UpstreamKind::openai) {
    json body{{"model", t.model}, {"input", r.text}, {"voice", t.voice}, {"response_format", "mp3"}};
    if (r.settings.speed) body["speed"] = *r.settings.speed;
    return request(t, key, "/audio/speech", "POST", to_json_text(body));
  }
  json body{{"text", r.text}, {"model_id", t.model}, {"voice_settings", voice_settings(r.settings)}};
  if (!r.language_code.empty()) body["language_code"] = r.language_code;
  if (!r.previous_text.empty()) body["previous_text"] = r.previous_text;
  if (!r.next_text.empty()) body["next_text"] = r.next_text;
  return request(t, key, "/v1/text-to-speech/" + percent_encode(t.voice) + "/with-timestamps", "POST",
                 to_json_text(body));
}

}  // namespace

boost::system::result<SpeechPcm, EngineFailure> Upstreams::speak(const UpstreamTarget& t, const SpeechRequest& r) {
  auto key = read_key(t);
  if (!key) return scrubbed(t, key.error(), Key{});
  auto answer = call(t, speech_call(t, *key, r));
  if (!answer) return scrubbed(t, answer.error(), *key);
  std::string audio = std::move(answer->body);
  std::optional<std::vector<WordTiming>> words;
  if (t.kind == UpstreamKind::elevenlabs) {
    auto timed = parse_timed_speech(audio);
    if (!timed) return EngineFailure::technical("upstream_bad_audio", "upstream answer without audio_base64");
    words = words_from_alignment(r.text, timed->characters, timed->starts_seconds);
    audio = std::move(timed->audio);
  }
  auto pcm = checked_pcm(audio, speech_bounds(r.text));
  if (!pcm) {
    count(t.service, "bad_audio");
    return pcm.error();
  }
  if (words) {
    pcm->words = std::move(*words);
  } else {
    const auto ms = static_cast<std::int64_t>(pcm->samples.size()) * 1000 / pcm->sample_rate;
    pcm->words = estimate_words(r.text, ms);
    pcm->words_estimated = true;
  }
  return std::move(*pcm);
}

boost::system::result<SpeechPcm, EngineFailure> Upstreams::generate(const UpstreamTarget& t, TaskType task_type,
                                                                   const PromptRequest& r) {
  if (t.kind != UpstreamKind::elevenlabs || !is_single_shot(task_type)) {
    return EngineFailure::technical("engine_unavailable", "this upstream makes no " + std::string(task_type_name(task_type)));
  }
  auto key = read_key(t);
  if (!key) return scrubbed(t, key.error(), Key{});
  const std::int64_t asked = r.duration_ms.value_or(task_type == TaskType::sfx ? 5000 : 30000);
  HttpCall c = task_type == TaskType::sfx
                   ? request(t, *key, "/v1/sound-generation", "POST",
                             to_json_text(json{{"text", r.prompt}, {"duration_seconds", static_cast<double>(asked) / 1000.0}}))
                   : request(t, *key, "/v1/music", "POST",
                             to_json_text(json{{"prompt", r.prompt}, {"music_length_ms", asked}}));
  auto answer = call(t, c);
  if (!answer) return scrubbed(t, answer.error(), *key);
  auto pcm = checked_pcm(answer->body, {asked / 4, asked * 2 + 2000});
  if (!pcm) count(t.service, "bad_audio");
  return pcm;
}

boost::system::result<std::vector<UpstreamVoice>, EngineFailure> Upstreams::voices(const UpstreamTarget& t) {
  auto key = read_key(t);
  if (!key) return scrubbed(t, key.error(), Key{});
  const bool openai = t.kind == UpstreamKind::openai;
  auto answer = call(t, request(t, *key, openai ? "/audio/voices" : "/v1/voices", "GET", {}));
  if (!answer) {
    // An openai-shaped server without a voices list: the configured voices stand.
    if (openai && answer.error().detail.starts_with("upstream answered 404")) return std::vector<UpstreamVoice>{};
    return scrubbed(t, answer.error(), *key);
  }
  return openai ? parse_openai_voices(answer->body) : parse_elevenlabs_voices(answer->body);
}

}  // namespace mediagen::engines
