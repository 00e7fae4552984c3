#include "compat_service.hpp"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/templates/catalogue.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/voices/voices.hpp"
#include "openai_errors.hpp"

namespace mediagen::compat {
namespace {

using nlohmann::json;

// How many voices one listing shows (the demo catalogues hold far fewer).
constexpr std::int64_t kMaxVoicesListed = 5000;

bool offers(const templates::ServiceCatalogue& s, std::string_view model_id) {
  if (!s.service.active || s.service.kind != templates::ServiceKind::tts) return false;
  const auto* m = s.model(model_id);
  return m && m->active;
}

std::vector<templates::ServiceCatalogue> voice_services(db::Db& db) {
  return db::read(db, [&](db::Tx& tx) { return templates::load_services(db, tx, /*voice_services_only=*/true); });
}

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// OpenAI's speed (0.25..4.0) clamped into the model's own speed range; nothing for a model
// without the setting (a setting a model does not honour is ignored, spec 1) or for 1.0 asked
// of it implicitly.
std::optional<double> fitted_speed(db::Db& db, const ModelChoice& choice, std::optional<double> speed) {
  if (!speed) return std::nullopt;
  auto service = templates::find_service(db, choice.service_key);
  const auto* model = service ? service->model(choice.model_id) : nullptr;
  const auto* spec = model ? model->setting(templates::kSpeed) : nullptr;
  if (!spec || spec->type != templates::SettingType::number) return std::nullopt;
  return std::clamp(*speed, spec->min, spec->max);
}

}  // namespace

Result<ModelChoice> resolve_model(db::Db& db, UserId user, std::string_view model) {
  if (const auto template_id = TemplateId::parse(model)) {
    auto stored = templates::load_template(db, user, *template_id);
    if (!stored) {
      if (stored.error().status == 404) return model_not_found(model);
      return stored.error();
    }
    const auto config = json::parse(stored->config_json, nullptr, false);
    std::string model_id;
    if (config.is_object() && config.contains("tts_settings") && config["tts_settings"].is_object()) {
      model_id = config["tts_settings"].value("model_id", "");
    }
    return ModelChoice{.template_id = TemplateId::of_row(stored->id), .service_key = stored->service_key, .model_id = model_id};
  }
  if (const auto slash = model.find('/'); slash != std::string_view::npos) {
    const auto key = model.substr(0, slash);
    const auto model_id = model.substr(slash + 1);
    auto service = templates::find_service(db, key);
    if (!service || !offers(*service, model_id)) return model_not_found(model);
    return ModelChoice{.service_key = std::string(key), .model_id = std::string(model_id)};
  }
  std::vector<std::string> owners;
  for (const auto& s : voice_services(db)) {
    if (offers(s, model)) owners.push_back(s.service.key);
  }
  if (owners.empty()) return model_not_found(model);
  if (owners.size() > 1) {
    std::string choices;
    for (const auto& key : owners) choices += (choices.empty() ? "" : ", ") + key + "/" + std::string(model);
    return invalid_field("model", Message{"validation.in", {{"attribute", "model"}, {"values", choices}}});
  }
  return ModelChoice{.service_key = owners.front(), .model_id = std::string(model)};
}

Result<orders::SpeechOrder> speech_order(db::Db& db, UserId user, const SpeechRequest& request) {
  auto choice = resolve_model(db, user, request.model);
  if (!choice) return choice.error();
  if (!choice->template_id && !request.voice) {
    return invalid_field("voice", Message{"validation.required", {{"attribute", "voice"}}});
  }
  if (request.voice) {
    const bool known = db::read(db, [&](db::Tx& tx) {
      auto service = templates::load_service(db, tx, choice->service_key);
      return service && templates::find_voice(db, tx, service->service.id, *request.voice, user).has_value();
    });
    if (!known) return voice_not_found(*request.voice);
  }
  return orders::SpeechOrder{.template_id = choice->template_id,
                             .service_key = choice->service_key,
                             .model_id = choice->model_id,
                             .voice_id = request.voice,
                             .speed = fitted_speed(db, *choice, request.speed),
                             .text = request.input};
}

std::string models_json(db::Db& db, UserId user) {
  json data = json::array();
  for (const auto& s : voice_services(db)) {
    if (!s.service.active || s.service.kind != templates::ServiceKind::tts) continue;
    for (const auto& m : s.models) {
      if (!m.active) continue;
      data.push_back({{"id", s.service.key + "/" + m.model_id},
                      {"object", "model"},
                      {"created", 0},
                      {"owned_by", s.service.key},
                      {"name", m.name},
                      {"kind", "service_model"}});
    }
  }
  for (const auto& t : templates::list_templates(db, user)) {
    data.push_back({{"id", t.id},
                    {"object", "model"},
                    {"created", unix_seconds(t.created_at)},
                    {"owned_by", t.service_key},
                    {"name", t.name},
                    {"kind", "template"}});
  }
  return to_json_text(json{{"object", "list"}, {"data", std::move(data)}});
}

Result<std::string> voices_json(db::Db& db, UserId user, std::optional<std::string_view> model) {
  voices::VoiceFilter filter;
  if (model) {
    auto choice = resolve_model(db, user, *model);
    if (!choice) return choice.error();
    filter.service = choice->service_key;
  }
  json list = json::array();
  const auto slice = voices::find_voices(db, filter, 0, kMaxVoicesListed);
  for (const auto& v : slice.items) {
    list.push_back({{"id", v.voice_id}, {"name", v.name}, {"language", v.language}, {"service", v.service}});
  }
  return to_json_text(json{{"voices", std::move(list)}});
}

std::string order_id_of(std::string_view order_json) {
  auto data = json::parse(order_json, nullptr, false);
  if (!data.is_object()) return {};
  auto it = data.find("id");
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

}  // namespace mediagen::compat
