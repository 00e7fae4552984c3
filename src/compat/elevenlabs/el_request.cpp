#include "el_request.hpp"

#include "../json_fields.hpp"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/speech/breaks.hpp"
#include "mediagen/http/query.hpp"

namespace mediagen::compat::elevenlabs {
namespace {

using nlohmann::json;

using Args = std::vector<std::pair<std::string, std::string>>;

ApiError field_error(std::string_view field, const char* key, Args args = {}) {
  args.emplace_back("attribute", std::string(field));
  return ApiError::validation(std::string(field), Message{key, std::move(args)});
}

// A number within [min, max] (NaN-proof); `shown_*` are the bounds as the message names them.
Result<std::optional<double>> read_number(const json& body, std::string_view field, std::string_view path, double min,
                                          double max, std::string_view shown_min, std::string_view shown_max) {
  const json* value = member(body, field);
  if (!value) return std::optional<double>{};
  if (!value->is_number()) return field_error(path, "validation.numeric");
  const double v = value->get<double>();
  if (!(v >= min && v <= max)) {
    return field_error(path, "validation.between", {{"min", std::string(shown_min)}, {"max", std::string(shown_max)}});
  }
  return std::optional<double>{v};
}

Result<std::optional<std::uint32_t>> read_seed(const json& body) {
  const json* value = member(body, "seed");
  if (!value) return std::optional<std::uint32_t>{};
  const bool fits = value->is_number_unsigned() && value->get<std::uint64_t>() <= std::numeric_limits<std::uint32_t>::max();
  const bool zero = value->is_number_integer() && value->get<std::int64_t>() == 0;
  if (!fits && !zero) return field_error("seed", "validation.between", {{"min", "0"}, {"max", "4294967295"}});
  return std::optional<std::uint32_t>{static_cast<std::uint32_t>(zero ? 0 : value->get<std::uint64_t>())};
}

bool is_language_code(std::string_view s) {
  if (s.size() < 2 || s.size() > 35) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  }
  return true;
}

Result<engines::VoiceSettings> read_settings(const json& body) {
  engines::VoiceSettings out;
  const json* settings = member(body, "voice_settings");
  if (!settings) return out;
  if (!settings->is_object()) return field_error("voice_settings", "validation.object");
  auto stability = read_number(*settings, "stability", "voice_settings.stability", 0, 1, "0", "1");
  if (!stability) return stability.error();
  auto similarity = read_number(*settings, "similarity_boost", "voice_settings.similarity_boost", 0, 1, "0", "1");
  if (!similarity) return similarity.error();
  auto style = read_number(*settings, "style", "voice_settings.style", 0, 1, "0", "1");
  if (!style) return style.error();
  auto speed = read_number(*settings, "speed", "voice_settings.speed", 0.7, 1.2, "0.7", "1.2");
  if (!speed) return speed.error();
  if (const json* boost = member(*settings, "use_speaker_boost")) {
    if (!boost->is_boolean()) return field_error("voice_settings.use_speaker_boost", "validation.boolean");
    out.use_speaker_boost = boost->get<bool>();
  }
  out.stability = *stability;
  out.similarity_boost = *similarity;
  out.speed = *speed;
  return out;
}

Result<void> require_object(const json& body) {
  if (!body.is_object()) return field_error("body", "validation.invalid_json");
  return {};
}

}  // namespace

Result<engines::OutputFormat> read_output_format(std::string_view query) {
  const auto parsed = http::Query::parse(query);
  auto name = parsed.get("output_format");
  if (!name) return engines::OutputFormat{};
  if (auto format = engines::parse_output_format(*name)) return *format;
  std::string values;
  for (auto n : engines::output_format_names()) values += (values.empty() ? "" : ", ") + std::string(n);
  return field_error("output_format", "validation.in", {{"values", values}});
}

Result<SpeechBody> read_speech_body(const json& body) {
  if (auto object = require_object(body); !object) return object.error();
  SpeechBody out;
  auto text = read_string(body, "text", kMaxInputChars, true);
  if (!text) return text.error();
  out.text = std::move(**text);
  // Break tags are pauses here: a text of nothing else has nothing to speak.
  const std::string spoken = engines::without_breaks(out.text, {}).text;
  if (spoken.find_first_not_of(" \t\r\n") == std::string::npos) return field_error("text", "validation.nothing_to_speak");
  auto model = read_string(body, "model_id", kMaxIdChars, false);
  if (!model) return model.error();
  out.model_id = std::move(*model);
  auto settings = read_settings(body);
  if (!settings) return settings.error();
  out.settings = *settings;
  auto seed = read_seed(body);
  if (!seed) return seed.error();
  out.seed = *seed;
  auto previous = read_string(body, "previous_text", kMaxContextChars, false);
  if (!previous) return previous.error();
  out.previous_text = std::move(*previous);
  auto next = read_string(body, "next_text", kMaxContextChars, false);
  if (!next) return next.error();
  out.next_text = std::move(*next);
  auto language = read_string(body, "language_code", kMaxIdChars, false);
  if (!language) return language.error();
  if (*language && !is_language_code(**language)) return field_error("language_code", "validation.language_code");
  out.language_code = std::move(*language);
  return out;
}

Result<SoundBody> read_sound_body(const json& body) {
  if (auto object = require_object(body); !object) return object.error();
  auto text = read_string(body, "text", kMaxPromptChars, true);
  if (!text) return text.error();
  auto duration = read_number(body, "duration_seconds", "duration_seconds", 0.5, 22, "0.5", "22");
  if (!duration) return duration.error();
  auto influence = read_number(body, "prompt_influence", "prompt_influence", 0, 1, "0", "1");
  if (!influence) return influence.error();
  return SoundBody{.text = std::move(**text), .duration_seconds = *duration};
}

Result<MusicBody> read_music_body(const json& body) {
  if (auto object = require_object(body); !object) return object.error();
  auto prompt = read_string(body, "prompt", kMaxPromptChars, true);
  if (!prompt) return prompt.error();
  auto length = read_number(body, "music_length_ms", "music_length_ms", 5000, 300000, "5000", "300000");
  if (!length) return length.error();
  auto seed = read_seed(body);
  if (!seed) return seed.error();
  MusicBody out{.prompt = std::move(**prompt), .seed = *seed};
  if (*length) out.length_ms = static_cast<std::int64_t>(std::llround(**length));
  return out;
}

}  // namespace mediagen::compat::elevenlabs
