#pragma once
// The service catalogue: services, their models and speech modes, as data in PostgreSQL
// (seeded by `mediagen admin seed-demo`; prices and capacities are rows, not code), and the
// voice-settings rule of spec section 1 as one pure function.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/capacity_unit.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/message.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::templates {

using mediagen::CapacityUnit;

enum class ServiceKind { tts, sfx, music, voice_search };
std::string_view to_string(ServiceKind kind);
std::optional<ServiceKind> parse_service_kind(std::string_view text);

// An upstream provider behind a service (engine "openai" or "elevenlabs"): where it is and how
// to find its key. The key itself is never stored: only an environment variable's name or a
// file's path (read by the workers when they call).
struct ServiceUpstream {
  std::string url;       // base URL, http(s), no trailing slash
  std::string model;     // the upstream's model; empty: the template's model id
  std::string key_env;   // environment variable holding the key; may be empty
  std::string key_file;  // file holding the key; may be empty
  std::vector<std::string> voices;  // configured voices, used when the upstream lists none
};

struct Service {
  std::int64_t id = 0;
  std::string key;
  ServiceKind kind = ServiceKind::tts;
  std::string name;
  CapacityUnit capacity_unit = CapacityUnit::chars;
  bool active = true;
  std::string engine = "espeak";            // services.engine
  std::optional<ServiceUpstream> upstream;  // set for the upstream engines
};

// The engines that call an upstream provider over HTTP.
inline bool is_upstream_engine(std::string_view engine) { return engine == "openai" || engine == "elevenlabs"; }

// services.upstream as JSON text and back; nullopt for text that is not such an object.
std::string upstream_to_json(const ServiceUpstream& upstream);
std::optional<ServiceUpstream> upstream_from_json(std::string_view json);

// The four voice settings a template may carry (spec 2.5).
struct VoiceSettings {
  std::optional<double> stability;
  std::optional<double> similarity_boost;
  std::optional<double> speed;
  std::optional<bool> use_speaker_boost;
  friend bool operator==(const VoiceSettings&, const VoiceSettings&) = default;
};

inline constexpr std::string_view kStability = "stability";
inline constexpr std::string_view kSimilarityBoost = "similarity_boost";
inline constexpr std::string_view kUseSpeakerBoost = "use_speaker_boost";
inline constexpr std::string_view kSpeed = "speed";

// One entry of a model's voice-settings schema: bounds (numbers) and the default.
enum class SettingType { number, boolean };
struct SettingSpec {
  std::string key;  // one of the four names above
  SettingType type = SettingType::number;
  double min = 0;
  double max = 0;
  double default_number = 0;
  bool default_bool = false;
};

struct Model {
  std::int64_t id = 0;
  std::string service_key;
  std::string model_id;
  std::string name;
  int generation = 1;
  std::int64_t capacity = 0;  // of one chunk, in capacity_unit
  CapacityUnit capacity_unit = CapacityUnit::chars;
  std::int64_t price_per_1k_minor = 0;  // per 1,000 tokens, platform currency
  std::vector<std::string> settings_honoured;  // with advanced_voice_settings, or always
  std::vector<std::string> settings_basic;     // without advanced_voice_settings
  std::vector<SettingSpec> settings_schema;    // in display order
  std::optional<std::vector<std::string>> languages;  // nullopt: every language of the service's voices
  bool active = true;

  const SettingSpec* setting(std::string_view key) const;
};

struct Mode {
  std::string mode;
  std::string name;
  bool active = true;
};

// One service with everything a template of it is checked against.
struct ServiceCatalogue {
  Service service;
  std::vector<Model> models;          // active and inactive, in display order
  std::vector<Mode> modes;            // active and inactive
  std::vector<std::string> voice_languages;  // ISO 639-1 codes its active voices speak, sorted
  // The catalogue version it was read at (service_cache.hpp); 0 from a read that does not say.
  std::int64_t version = 0;

  const Model* model(std::string_view model_id) const;  // any, active or not
  bool has_active_mode(std::string_view mode) const;
  // The language codes `model` accepts as language_code, sorted.
  std::vector<std::string> languages_of(const Model& model) const;
};

// A catalogue voice as templates and the speech engine need it.
struct CatalogueVoice {
  std::string id;        // global ("LumVoice") uuid
  std::string voice_id;  // provider-format id
  std::string name;
  std::string language;
  std::string espeak_voice;
  std::string espeak_variant;
  std::string upstream_voice_id;  // what an upstream provider calls the voice (= voice_id when not synced)
  // A voice clone's profile (engines/voice_profile.hpp as JSON text); empty for catalogue voices.
  std::string profile_json;
};

// The rule of spec section 1. Without advanced_voice_settings a model honours only its
// settings_basic (third-generation provider_a models: stability; fourth-generation:
// stability and similarity_boost); with it, all of settings_honoured. On other models both
// lists are equal, so the flag has no effect. A honoured setting the template leaves out
// takes the schema default; a setting that is not honoured is nullopt (silently ignored).
VoiceSettings effective_voice_settings(const Model& model, const VoiceSettings& requested, bool advanced);

// Reads (one statement each; the caller's transaction or a plain read).
// With `kept`, a service kept at the transaction's catalogue version comes from memory, and a
// service read from PostgreSQL is kept (service_cache.hpp).
class ServiceCache;
struct ServiceCacheView {
  ServiceCache* cache = nullptr;  // none: always read
  std::int64_t version = 0;       // the version the caller's transaction read
};
std::optional<ServiceCatalogue> load_service(db::Db& db, db::Tx& tx, std::string_view key, ServiceCacheView kept = {});
std::vector<ServiceCatalogue> load_services(db::Db& db, db::Tx& tx, bool voice_services_only);
// An active voice of `service_id`'s catalogue by its provider-format id; failing that, when
// `owner` is given, the owner's ready voice clone of the service with that voice_id (a clone
// that is pending, failed, archived or another account's is no voice here). With `kept`, a
// catalogue voice may come from memory, and one read is kept (clones never are).
std::optional<CatalogueVoice> find_voice(db::Db& db, db::Tx& tx, std::int64_t service_id,
                                         std::string_view voice_id, std::optional<UserId> owner = std::nullopt,
                                         ServiceCacheView kept = {});

struct LanguageName {
  std::string code;
  std::string name;
};
// Every language of the reference table, named in `locale`, sorted by code.
std::vector<LanguageName> language_names(db::Db& db, db::Tx& tx, Locale locale);

// Convenience for other domains: one service by key in its own read; nullopt when unknown.
std::optional<ServiceCatalogue> find_service(db::Db& db, std::string_view key);

}  // namespace mediagen::templates
