#include "mediagen/templates/validation.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/core/utf8.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

namespace mediagen::templates {
namespace {

using json = nlohmann::json;

constexpr std::string_view kTts = "config.tts_settings";

std::string format_number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, end) : std::to_string(v);
}

bool is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string trim(std::string_view s) {
  while (!s.empty() && is_blank(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && is_blank(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

bool is_language_code(std::string_view s) {
  return s.size() == 2 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z';
}

// Collects field errors; the first one creates the ApiError.
class Errors {
 public:
  void add(std::string field, std::string key, std::vector<std::pair<std::string, std::string>> extra = {}) {
    std::vector<std::pair<std::string, std::string>> params{{"attribute", field}};
    for (auto& p : extra) params.push_back(std::move(p));
    Message m{std::move(key), std::move(params)};
    if (!error_) error_ = ApiError::validation(std::move(field), std::move(m));
    else error_->add_field(std::move(field), std::move(m));
  }
  bool any() const { return error_.has_value(); }
  ApiError take() { return std::move(*error_); }

 private:
  std::optional<ApiError> error_;
};

const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

// A required string; nullopt (with an error recorded) when absent, not a string or empty.
std::optional<std::string> required_string(const json& object, std::string_view key, const std::string& field,
                                           Errors& errors) {
  const json* v = member(object, key);
  if (!v) {
    errors.add(field, "validation.required");
    return std::nullopt;
  }
  if (!v->is_string()) {
    errors.add(field, "validation.string");
    return std::nullopt;
  }
  auto s = v->get<std::string>();
  // PostgreSQL text cannot hold NUL; such a value is no usable string.
  if (s.find('\0') != std::string::npos) {
    errors.add(field, "validation.string");
    return std::nullopt;
  }
  if (s.empty()) {
    errors.add(field, "validation.required");
    return std::nullopt;
  }
  return s;
}

std::optional<double> number_of(const json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

// The type of the four known settings, used when no model schema is at hand.
SettingType default_type(std::string_view key) {
  return key == kUseSpeakerBoost ? SettingType::boolean : SettingType::number;
}

bool known_setting(std::string_view key) {
  return key == kStability || key == kSimilarityBoost || key == kSpeed || key == kUseSpeakerBoost;
}

void assign(VoiceSettings& s, std::string_view key, const json& v) {
  if (key == kStability) s.stability = v.get<double>();
  else if (key == kSimilarityBoost) s.similarity_boost = v.get<double>();
  else if (key == kSpeed) s.speed = v.get<double>();
  else if (key == kUseSpeakerBoost) s.use_speaker_boost = v.get<bool>();
}

}  // namespace

Result<ValidatedTemplate> validate_template(const json& document, CatalogueView& catalogue, NameRule name_rule) {
  if (!document.is_object()) {
    return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  }
  Errors errors;
  ValidatedTemplate out;

  if (name_rule == NameRule::required) {
    if (auto name = required_string(document, "name", "name", errors)) {
      out.name = trim(*name);
      if (out.name.empty()) errors.add("name", "validation.required");
      else if (count_code_points(out.name) > kMaxTemplateNameChars) {
        errors.add("name", "validation.max_string", {{"max", std::to_string(kMaxTemplateNameChars)}});
      }
    }
  }

  std::optional<ServiceCatalogue> service;
  if (auto key = required_string(document, "service_key", "service_key", errors)) {
    service = catalogue.service(*key);
    if (service && (service->service.kind != ServiceKind::tts || !service->service.active)) service.reset();
    if (!service) errors.add("service_key", "validation.service_unknown");
  }
  const std::vector<std::pair<std::string, std::string>> service_param =
      service ? std::vector<std::pair<std::string, std::string>>{{"service", service->service.key}}
              : std::vector<std::pair<std::string, std::string>>{};

  const json* config = member(document, "config");
  const json* tts = nullptr;
  if (!config) errors.add("config", "validation.required");
  else if (!config->is_object()) errors.add("config", "validation.object");
  else {
    tts = member(*config, "tts_settings");
    if (!tts) errors.add(std::string(kTts), "validation.required");
    else if (!tts->is_object()) {
      errors.add(std::string(kTts), "validation.object");
      tts = nullptr;
    }
  }
  if (!tts) return errors.take();

  const std::string f_mode = std::string(kTts) + ".mode";
  const std::string f_model = std::string(kTts) + ".model_id";
  const std::string f_voice = std::string(kTts) + ".voice_id";
  const std::string f_language = std::string(kTts) + ".language_code";
  const std::string f_advanced = std::string(kTts) + ".advanced_voice_settings";
  const std::string f_settings = std::string(kTts) + ".voice_settings";

  auto mode = required_string(*tts, "mode", f_mode, errors);
  if (mode && service && !service->has_active_mode(*mode)) {
    errors.add(f_mode, "validation.mode_unsupported", service_param);
    mode.reset();
  }

  const Model* model = nullptr;
  if (auto model_id = required_string(*tts, "model_id", f_model, errors); model_id && service) {
    model = service->model(*model_id);
    if (model && !model->active) model = nullptr;
    if (!model) errors.add(f_model, "validation.model_unavailable", service_param);
  }

  std::optional<CatalogueVoice> voice;
  if (auto voice_id = required_string(*tts, "voice_id", f_voice, errors); voice_id && service) {
    voice = catalogue.voice(*service, *voice_id);
    if (!voice) errors.add(f_voice, "validation.voice_unknown", service_param);
  }

  std::optional<std::string> language;
  if (const json* v = member(*tts, "language_code")) {
    if (!v->is_string()) errors.add(f_language, "validation.string");
    else if (!is_language_code(v->get_ref<const std::string&>())) errors.add(f_language, "validation.language_code");
    else {
      language = v->get<std::string>();
      if (model) {
        const auto accepted = service->languages_of(*model);
        if (!std::binary_search(accepted.begin(), accepted.end(), *language)) {
          errors.add(f_language, "validation.language_unsupported", {{"model", model->model_id}});
        }
      }
    }
  }

  bool advanced = false;
  if (const json* v = member(*tts, "advanced_voice_settings")) {
    if (!v->is_boolean()) errors.add(f_advanced, "validation.boolean");
    else advanced = v->get<bool>();
  }

  VoiceSettings requested;
  nlohmann::ordered_json settings_out = nlohmann::ordered_json::object();
  if (const json* v = member(*tts, "voice_settings")) {
    if (!v->is_object()) {
      errors.add(f_settings, "validation.object");
    } else {
      for (const auto& [key, value] : v->items()) {
        if (value.is_null()) continue;
        const std::string field = f_settings + "." + key;
        const SettingSpec* spec = model ? model->setting(key) : nullptr;
        if (model && !spec) {
          errors.add(field, "validation.setting_unknown", {{"model", model->model_id}});
          continue;
        }
        if (!model && !known_setting(key)) continue;  // judged once the model is right
        const SettingType type = spec ? spec->type : default_type(key);
        if (type == SettingType::boolean) {
          if (!value.is_boolean()) errors.add(field, "validation.boolean");
          continue;
        }
        auto number = number_of(value);
        if (!number) {
          errors.add(field, "validation.numeric");
          continue;
        }
        if (spec && (*number < spec->min || *number > spec->max)) {
          errors.add(field, "validation.between",
                     {{"min", format_number(spec->min)}, {"max", format_number(spec->max)}});
        }
      }
      if (model) {
        // In schema order, so equal settings always serialise alike.
        for (const auto& spec : model->settings_schema) {
          const json* value = member(*v, spec.key);
          // A value of the wrong type was reported above; it is never read.
          if (!value || (spec.type == SettingType::boolean ? !value->is_boolean() : !value->is_number())) continue;
          assign(requested, spec.key, *value);
          settings_out[spec.key] = *value;
        }
      }
    }
  }

  if (errors.any()) return errors.take();

  nlohmann::ordered_json tts_out = nlohmann::ordered_json::object();
  tts_out["mode"] = *mode;
  tts_out["model_id"] = model->model_id;
  tts_out["voice_id"] = voice->voice_id;
  tts_out["language_code"] = language ? nlohmann::ordered_json(*language) : nlohmann::ordered_json(nullptr);
  tts_out["advanced_voice_settings"] = advanced;
  tts_out["voice_settings"] = std::move(settings_out);
  nlohmann::ordered_json config_out = nlohmann::ordered_json::object();
  config_out["tts_settings"] = std::move(tts_out);

  SpeechSetup& s = out.setup;
  s.service = service->service;
  s.model = *model;
  s.mode = *mode;
  s.voice = std::move(*voice);
  s.language_code = std::move(language);
  s.advanced_voice_settings = advanced;
  s.requested = requested;
  s.effective = effective_voice_settings(*model, requested, advanced);
  s.config_json = to_json_text(config_out);
  return out;
}

}  // namespace mediagen::templates
