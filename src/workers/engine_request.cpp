#include "engine_request.hpp"

#include <nlohmann/json.hpp>

namespace mediagen::workers::detail {
namespace {

// Absent and null are the same: the engine's neutral value.
bool read_string(const nlohmann::json& doc, const char* key, std::string& out) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

bool read_number(const nlohmann::json& doc, const char* key, std::optional<double>& out) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return true;
  if (!it->is_number()) return false;
  out = it->get<double>();
  return true;
}

bool read_prompt_fields(const nlohmann::json& doc, engines::PromptRequest& out) {
  if (auto it = doc.find("duration_ms"); it != doc.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) return false;
    out.duration_ms = it->get<std::int64_t>();
  }
  if (auto it = doc.find("seed"); it != doc.end() && !it->is_null()) {
    if (!it->is_number_unsigned()) return false;
    out.seed = it->get<std::uint64_t>();
  }
  return true;
}

// The upstream's place and the key's source; nullopt when malformed.
std::optional<engines::UpstreamTarget> read_upstream(const nlohmann::json& u, std::string_view engine) {
  const auto kind = engines::parse_upstream_kind(engine);
  if (!kind || !u.is_object()) return std::nullopt;
  engines::UpstreamTarget t;
  t.kind = *kind;
  if (!read_string(u, "service", t.service) || !read_string(u, "url", t.url) || !read_string(u, "model", t.model) ||
      !read_string(u, "key_env", t.key_env) || !read_string(u, "key_file", t.key_file) ||
      !read_string(u, "voice", t.voice) || t.url.empty()) {
    return std::nullopt;
  }
  return t;
}

}  // namespace

std::optional<EngineRequest> parse_engine_request(std::string_view json) {
  const auto doc = nlohmann::json::parse(json, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  auto engine = doc.find("engine");
  if (engine == doc.end() || !engine->is_string()) return std::nullopt;
  EngineRequest r;
  r.engine = engine->get<std::string>();
  if (!read_string(doc, "voice", r.speech.espeak_voice) || !read_string(doc, "variant", r.speech.variant) ||
      !read_string(doc, "language", r.speech.language_code) || !read_string(doc, "previous_text", r.speech.previous_text) ||
      !read_string(doc, "next_text", r.speech.next_text)) {
    return std::nullopt;
  }
  if (!read_prompt_fields(doc, r.prompt) || !read_string(doc, "upload", r.upload)) return std::nullopt;
  if (auto it = doc.find("top"); it != doc.end() && !it->is_null()) {
    if (!it->is_number_integer()) return std::nullopt;
    r.top = it->get<std::int64_t>();
  }
  if (auto profile = doc.find("profile"); profile != doc.end() && !profile->is_null()) {
    r.speech.profile = engines::voice_profile_from_json(*profile);
    if (!r.speech.profile) return std::nullopt;
  }
  if (auto b = doc.find("breaks"); b != doc.end() && !b->is_null()) {
    if (!b->is_boolean()) return std::nullopt;
    r.speech.breaks = b->get<bool>();
  }
  if (auto f = doc.find("output_format"); f != doc.end() && !f->is_null()) {
    if (!f->is_string()) return std::nullopt;
    r.output_format = engines::parse_output_format(f->get_ref<const std::string&>());
    if (!r.output_format) return std::nullopt;
  }
  if (auto u = doc.find("upstream"); u != doc.end() && !u->is_null()) {
    r.upstream = read_upstream(*u, r.engine);
    if (!r.upstream) return std::nullopt;
  }
  auto settings = doc.find("settings");
  if (settings != doc.end() && !settings->is_null()) {
    if (!settings->is_object()) return std::nullopt;
    auto& s = r.speech.settings;
    if (!read_number(*settings, "stability", s.stability) ||
        !read_number(*settings, "similarity_boost", s.similarity_boost) ||
        !read_number(*settings, "speed", s.speed)) {
      return std::nullopt;
    }
    auto boost = settings->find("use_speaker_boost");
    if (boost != settings->end() && !boost->is_null()) {
      if (!boost->is_boolean()) return std::nullopt;
      s.use_speaker_boost = boost->get<bool>();
    }
  }
  return r;
}

bool takes_neighbours(std::string_view json) {
  // Most chunks are the embedded engine's: no parse for them.
  if (json.find("elevenlabs") == std::string_view::npos) return false;
  const auto request = parse_engine_request(json);
  return request && request->upstream && request->upstream->kind == engines::UpstreamKind::elevenlabs;
}

}  // namespace mediagen::workers::detail
