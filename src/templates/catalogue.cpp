// The pure part of the catalogue: names of enums, lookups inside a loaded service, and the
// voice-settings rule of spec section 1.
#include <algorithm>

#include "mediagen/templates/catalogue.hpp"

#include "mediagen/core/task_type.hpp"

namespace mediagen::templates {

namespace {

// A service makes one of the orderable task types, and is named as it.
TaskType task_type_of(ServiceKind kind) {
  switch (kind) {
    case ServiceKind::tts: return TaskType::tts;
    case ServiceKind::sfx: return TaskType::sfx;
    case ServiceKind::music: return TaskType::music;
    case ServiceKind::voice_search: return TaskType::voice_search;
  }
  return TaskType::tts;
}

}  // namespace

std::string_view to_string(ServiceKind kind) { return task_type_name(task_type_of(kind)); }

std::optional<ServiceKind> parse_service_kind(std::string_view text) {
  switch (parse_task_type(text).value_or(TaskType::image)) {
    case TaskType::tts: return ServiceKind::tts;
    case TaskType::sfx: return ServiceKind::sfx;
    case TaskType::music: return ServiceKind::music;
    case TaskType::voice_search: return ServiceKind::voice_search;
    default: return std::nullopt;
  }
}

const SettingSpec* Model::setting(std::string_view key) const {
  for (const auto& s : settings_schema) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

const Model* ServiceCatalogue::model(std::string_view model_id) const {
  for (const auto& m : models) {
    if (m.model_id == model_id) return &m;
  }
  return nullptr;
}

bool ServiceCatalogue::has_active_mode(std::string_view mode) const {
  return std::any_of(modes.begin(), modes.end(), [&](const Mode& m) { return m.active && m.mode == mode; });
}

std::vector<std::string> ServiceCatalogue::languages_of(const Model& m) const {
  std::vector<std::string> out = m.languages ? *m.languages : voice_languages;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

bool listed(const std::vector<std::string>& list, std::string_view key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

}  // namespace

VoiceSettings effective_voice_settings(const Model& model, const VoiceSettings& requested, bool advanced) {
  const auto& honoured = advanced ? model.settings_honoured : model.settings_basic;
  auto number = [&](std::string_view key, const std::optional<double>& given) -> std::optional<double> {
    if (!listed(honoured, key)) return std::nullopt;
    if (given) return given;
    if (const auto* spec = model.setting(key)) return spec->default_number;
    return std::nullopt;
  };
  VoiceSettings out;
  out.stability = number(kStability, requested.stability);
  out.similarity_boost = number(kSimilarityBoost, requested.similarity_boost);
  out.speed = number(kSpeed, requested.speed);
  if (listed(honoured, kUseSpeakerBoost)) {
    if (requested.use_speaker_boost) {
      out.use_speaker_boost = requested.use_speaker_boost;
    } else if (const auto* spec = model.setting(kUseSpeakerBoost)) {
      out.use_speaker_boost = spec->default_bool;
    }
  }
  return out;
}

}  // namespace mediagen::templates
