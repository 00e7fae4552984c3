#pragma once
// Templates (spec 2.5, 4.4): the account's saved speech settings, checked against the service's
// CURRENT catalogue whenever they are written or used.
//
// Other domains (preview, orders) call load_template() for the 404 / 403 refusals and then
// validate_stored() for everything a synthesis needs (model, capacity and unit, voice, effective
// settings); a stored template that no longer passes is 422 template_model_outdated.
// All functions run blocking SQL: call them inside BlockingPool::run.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/templates/catalogue.hpp"

namespace mediagen::templates {

struct Template {
  std::string id;  // uuid, lowercase
  UserId user_id;
  std::string service_key;
  std::string name;
  std::string config_json;  // {"tts_settings": {...}} as stored (normalised on write)
  TimePoint created_at;
  TimePoint updated_at;
};

// Everything needed to speak with a template, resolved against the current catalogue.
struct SpeechSetup {
  Service service;
  Model model;  // capacity, capacity_unit, price_per_1k_minor, generation
  std::string mode;
  CatalogueVoice voice;  // espeak_voice + espeak_variant for the engine
  std::optional<std::string> language_code;
  bool advanced_voice_settings = false;
  VoiceSettings requested;  // as stored
  VoiceSettings effective;  // effective_voice_settings(model, requested, advanced)
  std::string config_json;  // the normalised config: the snapshot an order keeps
};

// Loads a live template the user may use. 404 (errors.not_found) when the id is malformed, no
// such template exists or it was deleted; 403 template_access_denied when it belongs to another
// account.
Result<Template> load_template(db::Db& db, UserId user, const TemplateId& template_id);
// The same rule on a template row read elsewhere (an order's creating statement): nothing when
// `user` may use it; 404 when there is no such row (`owner` empty) or it was deleted, 403 when it
// is another account's.
std::optional<ApiError> template_use_refusal(std::optional<UserId> owner, bool deleted, UserId user);
// The same inside the caller's transaction.
Result<Template> load_template_in(db::Db& db, db::Tx& tx, UserId user, const TemplateId& template_id);

// load_template, then validate_stored of it, in one read transaction (what an order made from a
// template needs): the template's refusal, or the template with its setup or its
// template_model_outdated refusal.
struct TemplateSetup {
  Template stored;
  Result<SpeechSetup> setup;
};
Result<TemplateSetup> load_template_setup(db::Db& db, UserId user, const TemplateId& template_id);

// Checks a stored template (or an order's snapshot of one) against the current catalogue:
// the service is a live voice service, the model active, the mode supported, the voice in the
// catalogue, the language and settings within the model's schema. Any failure is 422
// template_model_outdated (details in the error's `internal`, for logs).
// A voice clone's voice_id resolves only for its `owner` (the template's account), and only
// while the clone is ready.
Result<SpeechSetup> validate_stored(db::Db& db, const Template& stored);
Result<SpeechSetup> validate_stored(db::Db& db, std::string_view service_key, std::string_view config_json,
                                    std::optional<UserId> owner);
// The same inside the caller's transaction; with `kept`, the service may come from memory
// (load_service).
Result<SpeechSetup> validate_stored_in(db::Db& db, db::Tx& tx, std::string_view service_key,
                                       std::string_view config_json, std::optional<UserId> owner,
                                       ServiceCacheView kept = {});

// The routes' operations. Bodies are the parsed JSON request; refusals are 422 with `errors`
// (field paths such as "config.tts_settings.voice_id"), 404 and 403 as for load_template.
Result<Template> create_template(db::Db& db, UserId user, const nlohmann::json& body);
// One operation for PUT and PATCH: the body is a JSON merge patch (RFC 7396) of
// {service_key, name, config}: objects merge key by key, null removes a key, anything else
// replaces. The result is validated as a new template.
Result<Template> update_template(db::Db& db, UserId user, const TemplateId& template_id,
                                 const nlohmann::json& patch);
Result<void> delete_template(db::Db& db, UserId user, const TemplateId& template_id);

// The user's live templates, newest first.
std::vector<Template> list_templates(db::Db& db, UserId user);

struct TemplatePage {
  std::vector<Template> items;
  std::int64_t total = 0;
  std::int64_t page = 1;
  std::int64_t per_page = 15;
};
TemplatePage browse_templates(db::Db& db, UserId user, std::int64_t page, std::int64_t per_page);

// The data of GET /templates/config-options (JSON text), names in `locale`.
std::string config_options_json(db::Db& db, Locale locale);


}  // namespace mediagen::templates
