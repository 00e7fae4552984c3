// GET /templates/config-options: what a client needs to build a template form, read from the
// current catalogue. Only active services, models and modes are offered.
#include <map>
#include "mediagen/core/json_text.hpp"
#include <set>

#include <nlohmann/json.hpp>

#include "mediagen/db/transact.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/billing/ledger.hpp"

namespace mediagen::templates {
namespace {

using ojson = nlohmann::ordered_json;

// Where each voice service's voices are listed (spec 4.5).
std::string voice_catalogue_path(std::string_view service_key) {
  if (service_key == "provider_a") return "/voices/provider_a/library";
  return "/voices/" + std::string(service_key);
}

ojson settings_schema_json(const Model& m) {
  ojson out = ojson::object();
  for (const auto& s : m.settings_schema) {
    ojson spec = ojson::object();
    if (s.type == SettingType::number) {
      spec["type"] = "number";
      spec["min"] = s.min;
      spec["max"] = s.max;
      spec["default"] = s.default_number;
    } else {
      spec["type"] = "boolean";
      spec["default"] = s.default_bool;
    }
    out[s.key] = std::move(spec);
  }
  return out;
}

}  // namespace

std::string config_options_json(db::Db& db, Locale locale) {
  return db::read(db, [&](db::Tx& tx) {
    const auto services = load_services(db, tx, /*voice_services_only=*/true);
    const auto names = language_names(db, tx, locale);
    const auto currency = billing::default_asset(db, tx);  // prices are in the platform currency
    std::map<std::string, std::string, std::less<>> name_of;
    for (const auto& n : names) name_of[n.code] = n.name;

    std::set<std::string> all_languages;
    ojson services_out = ojson::array();
    for (const auto& c : services) {
      ojson modes = ojson::array();
      for (const auto& m : c.modes) {
        if (m.active) modes.push_back({{"mode", m.mode}, {"name", m.name}});
      }
      ojson models = ojson::array();
      for (const auto& m : c.models) {
        if (!m.active) continue;
        const auto languages = c.languages_of(m);
        all_languages.insert(languages.begin(), languages.end());
        ojson model = ojson::object();
        model["model_id"] = m.model_id;
        model["name"] = m.name;
        model["generation"] = m.generation;
        model["capacity"] = m.capacity;
        model["capacity_unit"] = to_string(m.capacity_unit);
        model["price_per_1000_tokens_minor"] = m.price_per_1k_minor;
        model["voice_settings"] = settings_schema_json(m);
        model["honoured_settings"] = m.settings_honoured;
        model["settings_without_advanced"] = m.settings_basic;
        model["languages"] = languages;
        models.push_back(std::move(model));
      }
      ojson service = ojson::object();
      service["key"] = c.service.key;
      service["name"] = c.service.name;
      service["capacity_unit"] = to_string(c.service.capacity_unit);
      service["modes"] = std::move(modes);
      service["models"] = std::move(models);
      service["voice_catalogue"] = voice_catalogue_path(c.service.key);
      services_out.push_back(std::move(service));
    }

    ojson languages = ojson::array();
    for (const auto& code : all_languages) {
      auto it = name_of.find(code);
      languages.push_back({{"code", code}, {"name", it == name_of.end() ? code : it->second}});
    }

    ojson out = ojson::object();
    out["services"] = std::move(services_out);
    out["languages"] = std::move(languages);
    out["generation_modes"] = {"ordinary", "paragraph"};
    out["currency"] = {{"code", currency.code}, {"precision", currency.precision}};
    out["defaults"] = {{"advanced_voice_settings", false}, {"generation_mode", "ordinary"}};
    return to_json_text(out);
  });
}

}  // namespace mediagen::templates
