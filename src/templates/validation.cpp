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

void read_name(const json& document, NameRule name_rule, Errors& errors, ValidatedTemplate& out) {
  if (name_rule != NameRule::required) return;
  if (auto name = required_string(document, "name", "name", errors)) {
    out.name = trim(*name);
    if (out.name.empty()) errors.add("name", "validation.required");
    else if (count_code_points(out.name) > kMaxTemplateNameChars) {
      errors.add("name", "validation.max_string", {{"max", std::to_string(kMaxTemplateNameChars)}});
    }
  }
}

std::optional<ServiceCatalogue> read_service(const json& document, CatalogueView& catalogue, Errors& errors) {
  std::optional<ServiceCatalogue> service;
  if (auto key = required_string(document, "service_key", "service_key", errors)) {
    service = catalogue.service(*key);
    if (service && (service->service.kind != ServiceKind::tts || !service->service.active)) service.reset();
    if (!service) errors.add("service_key", "validation.service_unknown");
  }
  return service;
}

// config.tts_settings, or nullptr (reported) when it is missing or not an object.
const json* read_tts(const json& document, Errors& errors) {
  const json* config = member(document, "config");
  if (!config) {
    errors.add("config", "validation.required");
    return nullptr;
  }
  if (!config->is_object()) {
    errors.add("config", "validation.object");
    return nullptr;
  }
  const json* tts = member(*config, "tts_settings");
  if (!tts) {
    errors.add(std::string(kTts), "validation.required");
  } else if (!tts->is_object()) {
    errors.add(std::string(kTts), "validation.object");
    return nullptr;
  }
  return tts;
}

std::optional<std::string> read_language(const json& tts, const ServiceCatalogue* service, const Model* model,
                                         Errors& errors) {
  const std::string field = std::string(kTts) + ".language_code";
  const json* v = member(tts, "language_code");
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    errors.add(field, "validation.string");
    return std::nullopt;
  }
  if (!is_language_code(v->get_ref<const std::string&>())) {
    errors.add(field, "validation.language_code");
    return std::nullopt;
  }
  std::string language = v->get<std::string>();
  if (model) {
    const auto accepted = service->languages_of(*model);
    if (!std::binary_search(accepted.begin(), accepted.end(), language)) {
      errors.add(field, "validation.language_unsupported", {{"model", model->model_id}});
    }
  }
  return language;
}

// Every given setting is checked (against the model's schema once the model is right); the
// accepted values are kept in schema order, so equal settings always serialise alike.
void read_voice_settings(const json& settings, const Model* model, const std::string& f_settings, Errors& errors,
                         VoiceSettings& requested, nlohmann::ordered_json& settings_out) {
  for (const auto& [key, value] : settings.items()) {
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
      errors.add(field, "validation.between", {{"min", format_number(spec->min)}, {"max", format_number(spec->max)}});
    }
  }
  if (!model) return;
  for (const auto& spec : model->settings_schema) {
    const json* value = member(settings, spec.key);
    // A value of the wrong type was reported above; it is never read.
    if (!value || (spec.type == SettingType::boolean ? !value->is_boolean() : !value->is_number())) continue;
    assign(requested, spec.key, *value);
    settings_out[spec.key] = *value;
  }
}

// What a valid template resolves to: the normalised config and the speech setup.
struct Chosen {
  std::string mode;
  const Model* model = nullptr;
  CatalogueVoice voice;
  std::optional<std::string> language;
  bool advanced = false;
  VoiceSettings requested;
  nlohmann::ordered_json settings;
};

void fill_setup(ValidatedTemplate& out, const ServiceCatalogue& service, Chosen chosen) {
  nlohmann::ordered_json tts_out = nlohmann::ordered_json::object();
  tts_out["mode"] = chosen.mode;
  tts_out["model_id"] = chosen.model->model_id;
  tts_out["voice_id"] = chosen.voice.voice_id;
  tts_out["language_code"] =
      chosen.language ? nlohmann::ordered_json(*chosen.language) : nlohmann::ordered_json(nullptr);
  tts_out["advanced_voice_settings"] = chosen.advanced;
  tts_out["voice_settings"] = std::move(chosen.settings);
  nlohmann::ordered_json config_out = nlohmann::ordered_json::object();
  config_out["tts_settings"] = std::move(tts_out);

  SpeechSetup& s = out.setup;
  s.service = service.service;
  s.model = *chosen.model;
  s.mode = chosen.mode;
  s.voice = std::move(chosen.voice);
  s.language_code = std::move(chosen.language);
  s.advanced_voice_settings = chosen.advanced;
  s.requested = chosen.requested;
  s.effective = effective_voice_settings(*chosen.model, chosen.requested, chosen.advanced);
  s.config_json = to_json_text(config_out);
}

}  // namespace

Result<ValidatedTemplate> validate_template(const json& document, CatalogueView& catalogue, NameRule name_rule) {
  if (!document.is_object()) {
    return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  }
  Errors errors;
  ValidatedTemplate out;
  read_name(document, name_rule, errors, out);
  std::optional<ServiceCatalogue> service = read_service(document, catalogue, errors);
  const std::vector<std::pair<std::string, std::string>> service_param =
      service ? std::vector<std::pair<std::string, std::string>>{{"service", service->service.key}}
              : std::vector<std::pair<std::string, std::string>>{};
  const json* tts = read_tts(document, errors);
  if (!tts) return errors.take();

  const std::string f_mode = std::string(kTts) + ".mode";
  const std::string f_model = std::string(kTts) + ".model_id";
  const std::string f_voice = std::string(kTts) + ".voice_id";
  const std::string f_advanced = std::string(kTts) + ".advanced_voice_settings";
  const std::string f_settings = std::string(kTts) + ".voice_settings";

  Chosen chosen;
  auto mode = required_string(*tts, "mode", f_mode, errors);
  if (mode && service && !service->has_active_mode(*mode)) {
    errors.add(f_mode, "validation.mode_unsupported", service_param);
    mode.reset();
  }
  if (auto model_id = required_string(*tts, "model_id", f_model, errors); model_id && service) {
    chosen.model = service->model(*model_id);
    if (chosen.model && !chosen.model->active) chosen.model = nullptr;
    if (!chosen.model) errors.add(f_model, "validation.model_unavailable", service_param);
  }
  std::optional<CatalogueVoice> voice;
  if (auto voice_id = required_string(*tts, "voice_id", f_voice, errors); voice_id && service) {
    voice = catalogue.voice(*service, *voice_id);
    if (!voice) errors.add(f_voice, "validation.voice_unknown", service_param);
  }
  chosen.language = read_language(*tts, service ? &*service : nullptr, chosen.model, errors);
  if (const json* v = member(*tts, "advanced_voice_settings")) {
    if (!v->is_boolean()) errors.add(f_advanced, "validation.boolean");
    else chosen.advanced = v->get<bool>();
  }
  chosen.settings = nlohmann::ordered_json::object();
  if (const json* v = member(*tts, "voice_settings")) {
    if (!v->is_object()) errors.add(f_settings, "validation.object");
    else read_voice_settings(*v, chosen.model, f_settings, errors, chosen.requested, chosen.settings);
  }
  if (errors.any()) return errors.take();

  chosen.mode = *mode;
  chosen.voice = std::move(*voice);
  fill_setup(out, *service, std::move(chosen));
  return out;
}

nlohmann::json patched_document(const Template& current, const nlohmann::json& patch) {
  json doc = json::object();
  doc["service_key"] = current.service_key;
  doc["name"] = current.name;
  doc["config"] = json::parse(current.config_json, nullptr, false);
  if (doc["config"].is_discarded()) doc["config"] = json::object();
  doc.merge_patch(patch);
  return doc;
}

}  // namespace mediagen::templates
