#pragma once
// Checking a template document {service_key, name, config:{tts_settings:{...}}} against the
// catalogue, without SQL: the catalogue is reached through a CatalogueView, so the rules are
// unit-tested with an in-memory one and run against PostgreSQL in the service.
//
// Every problem found is reported at once, as 422 with one entry per field path
// ("config.tts_settings.voice_settings.speed"). Checks that depend on the service (model, mode,
// voice, language, bounds) are skipped while the service itself is wrong.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/templates/templates.hpp"

namespace mediagen::templates {

class CatalogueView {
 public:
  virtual ~CatalogueView() = default;
  // nullopt when no service has this key.
  virtual std::optional<ServiceCatalogue> service(std::string_view key) = 0;
  // An active catalogue voice of the service; nullopt when there is none with this id.
  virtual std::optional<CatalogueVoice> voice(const ServiceCatalogue& service, std::string_view voice_id) = 0;
};

inline constexpr std::size_t kMaxTemplateNameChars = 255;

struct ValidatedTemplate {
  std::string name;  // trimmed; empty when the name was not checked
  SpeechSetup setup;
};

enum class NameRule { required, ignored };

// `document` is the whole template: {"service_key": ..., "name": ..., "config": {...}}.
// On success the setup's config_json is the normalised config: tts_settings with mode,
// model_id, voice_id, language_code (null when absent), advanced_voice_settings (false when
// absent) and voice_settings (only the keys given, null values dropped); other keys dropped.
Result<ValidatedTemplate> validate_template(const nlohmann::json& document, CatalogueView& catalogue,
                                            NameRule name_rule);

// PUT and PATCH: the stored template as a document of the create body's shape ({service_key,
// name, config}; a stored config that is not JSON reads as {}), with `patch` applied as a JSON
// merge patch (RFC 7396). The result is then validated as a new template.
nlohmann::json patched_document(const Template& current, const nlohmann::json& patch);

}  // namespace mediagen::templates
