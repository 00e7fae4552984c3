#pragma once
// An in-memory catalogue shaped like the demo seed, for tests of the template rules.
#include <map>
#include <string>

#include "mediagen/templates/seed.hpp"
#include "mediagen/templates/validation.hpp"

namespace mediagen::templates::test {

inline std::vector<SettingSpec> demo_schema() {
  return {{"stability", SettingType::number, 0.0, 1.0, 0.5, false},
          {"similarity_boost", SettingType::number, 0.0, 1.0, 0.75, false},
          {"use_speaker_boost", SettingType::boolean, 0, 0, 0, true},
          {"speed", SettingType::number, 0.7, 1.2, 1.0, false}};
}

inline Model demo_model(const std::string& service, const std::string& id, int generation) {
  Model m;
  m.service_key = service;
  m.model_id = id;
  m.name = id;
  m.generation = generation;
  m.capacity = 5000;
  m.settings_honoured = all_settings();
  m.settings_basic = basic_settings(service, generation);
  m.settings_schema = demo_schema();
  return m;
}

// provider_a..provider_d with the demo models, mode_v1 and a few voices each; sfx as a
// non-voice service.
class FakeCatalogue final : public CatalogueView {
 public:
  FakeCatalogue() {
    std::int64_t id = 0;
    for (const auto& s : demo_services()) {
      ServiceCatalogue c;
      c.service = {++id, s.key, s.kind, s.name, s.capacity_unit, true};
      for (const auto& m : s.models) {
        Model model = demo_model(s.key, m.model_id, m.generation);
        model.capacity = m.capacity;
        model.capacity_unit = s.capacity_unit;
        if (!m.languages.empty()) model.languages = m.languages;
        c.models.push_back(std::move(model));
      }
      if (s.kind == ServiceKind::tts) c.modes.push_back({"mode_v1", "Standard", true});
      c.voice_languages = {"de", "en", "ru"};
      services[s.key] = std::move(c);
    }
    voices["provider_a|aaaaaaaaaaaaaaaaaaaa"] = {"11111111-1111-5111-8111-111111111111", "aaaaaaaaaaaaaaaaaaaa", "Alicia",
                                                "en", "gmw/en-US", "Alicia"};
    voices["provider_b|en-us-alicia"] = {"22222222-2222-5222-8222-222222222222", "en-us-alicia", "Alicia", "en",
                                         "gmw/en-US", "Alicia"};
    voices["provider_d|0123456789abcdef0123456789abcdef"] = {"33333333-3333-5333-8333-333333333333",
                                                            "0123456789abcdef0123456789abcdef", "Boris", "ru",
                                                            "zle/ru", "boris"};
  }

  std::optional<ServiceCatalogue> service(std::string_view key) override {
    ++service_lookups;
    auto it = services.find(std::string(key));
    if (it == services.end()) return std::nullopt;
    return it->second;
  }
  std::optional<CatalogueVoice> voice(const ServiceCatalogue& s, std::string_view voice_id) override {
    auto it = voices.find(s.service.key + "|" + std::string(voice_id));
    if (it == voices.end()) return std::nullopt;
    return it->second;
  }

  std::map<std::string, ServiceCatalogue> services;
  std::map<std::string, CatalogueVoice> voices;
  int service_lookups = 0;
};

}  // namespace mediagen::templates::test
