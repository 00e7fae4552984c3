// The rules of an operator's engine choice and the JSON form of services.upstream.
#include "mediagen/templates/service_engine.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"

namespace mediagen::templates {
namespace {

bool is_env_name(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  if (name[0] >= '0' && name[0] <= '9') return false;
  for (const char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool is_http_url(std::string_view url) {
  const bool scheme = url.starts_with("http://") || url.starts_with("https://");
  if (!scheme || url.size() > 2048) return false;
  const auto host = url.substr(url.find("//") + 2);
  if (host.empty() || host.front() == '/') return false;
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return false;
  }
  return true;
}

bool kind_fits(ServiceKind kind, std::string_view engine) {
  if (engine == "embedded") return true;
  if (engine == "espeak" || engine == "openai") return kind == ServiceKind::tts;
  if (engine == "elevenlabs") return kind == ServiceKind::tts || kind == ServiceKind::sfx || kind == ServiceKind::music;
  return false;
}

}  // namespace

std::string_view embedded_engine(ServiceKind kind) {
  switch (kind) {
    case ServiceKind::tts: return "espeak";
    case ServiceKind::sfx: return "sfx";
    case ServiceKind::music: return "music";
    case ServiceKind::voice_search: return "voice_search";
  }
  return "none";
}

std::optional<std::string> check_engine_choice(ServiceKind kind, const EngineChoice& choice) {
  if (!kind_fits(kind, choice.kind)) {
    return "engine " + choice.kind + " cannot serve a " + std::string(to_string(kind)) + " service";
  }
  if (!is_upstream_engine(choice.kind)) return std::nullopt;
  const auto& u = choice.upstream;
  if (u.url.empty()) return "--url is required for an upstream engine";
  if (!is_http_url(u.url)) return "--url must be an http:// or https:// URL";
  if (!u.key_env.empty() && !u.key_file.empty()) return "give --api-key-env or --api-key-file, not both";
  if (!u.key_env.empty() && !is_env_name(u.key_env)) return "--api-key-env must be an environment variable name";
  if (!u.key_file.empty() && !u.key_file.starts_with('/')) return "--api-key-file must be an absolute path";
  for (const auto& v : u.voices) {
    if (v.empty() || v.size() > 256) return "--voices holds an empty or overlong voice id";
  }
  return std::nullopt;
}

std::string upstream_to_json(const ServiceUpstream& u) {
  return to_json_text(nlohmann::ordered_json{
      {"url", u.url}, {"model", u.model}, {"key_env", u.key_env}, {"key_file", u.key_file}, {"voices", u.voices}});
}

std::optional<ServiceUpstream> upstream_from_json(std::string_view json) {
  const auto doc = nlohmann::json::parse(json, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  ServiceUpstream u;
  const auto text = [&](const char* key, std::string& out) {
    const auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  if (!text("url", u.url) || !text("model", u.model) || !text("key_env", u.key_env) || !text("key_file", u.key_file)) {
    return std::nullopt;
  }
  if (const auto it = doc.find("voices"); it != doc.end() && it->is_array()) {
    for (const auto& v : *it) {
      if (v.is_string()) u.voices.push_back(v.get<std::string>());
    }
  }
  if (u.url.empty()) return std::nullopt;
  return u;
}

}  // namespace mediagen::templates
