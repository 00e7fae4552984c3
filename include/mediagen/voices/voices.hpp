#pragma once
#include "mediagen/core/uuid_id.hpp"
// The voice catalogues (spec 2.6, 4.5): reading the voices of the voice services, their tags
// and filter values, and seeding them. All functions run blocking SQL: call them inside
// BlockingPool::run.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/message.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/voices/catalogue_builder.hpp"

namespace mediagen::voices {

// A catalogue voice record as the API shows it.
struct Voice {
  std::string id;        // LumVoice uuid, the key of GET /voices/{voice}
  std::string service;   // provider_a .. provider_d
  std::string voice_id;  // provider-format id, what a template's config.tts_settings.voice_id takes
  std::string name;
  std::string language;  // primary language subtag
  std::string locale;    // full tag of the voice, e.g. en-us
  std::string accent;    // e.g. "English (America)"
  std::string gender;    // male, female, neutral
  std::vector<std::string> tags;
  std::string preview_path;  // storage path of the preview sample
  bool is_public = true;
};

// Every field is optional; an unknown value matches nothing (an empty list, not an error).
struct VoiceFilter {
  std::optional<std::string> service;
  std::optional<std::string> language;  // primary subtag
  std::optional<std::string> locale;
  std::optional<std::string> gender;
  std::optional<std::string> tag;
  std::optional<std::string> search;  // case-insensitive part of the name
  bool public_only = false;
};

struct VoiceSlice {
  std::vector<Voice> items;
  std::int64_t total = 0;  // matches across all pages
};

// One slice of the matching voices (active voices of active services), ordered by service,
// language, locale, name and voice_id. An offset past the end gives no items.
VoiceSlice find_voices(db::Db& db, const VoiceFilter& filter, std::int64_t offset, std::int64_t limit);
// An active voice by its LumVoice id; nullopt when malformed or unknown.
std::optional<Voice> find_voice_by_id(db::Db& db, const VoiceId& id);
// The active voices whose provider-format id is `voice_id`, in service order (the services' id
// formats differ, so there is at most one in the demo catalogues).
std::vector<Voice> find_voices_by_voice_id(db::Db& db, std::string_view voice_id);

struct Tag {
  std::string code;
  std::string name;
};
std::vector<Tag> list_tags(db::Db& db, Locale locale);

// A value a list can be filtered by, with the number of voices that have it.
struct FilterValue {
  std::string type;   // "language" or "gender"
  std::string value;  // the filter parameter's value
  std::string name;   // localised
  std::int64_t count = 0;
};
std::vector<FilterValue> list_filters(db::Db& db, std::string_view service, Locale locale);

struct VoiceSeedReport {
  std::vector<std::pair<std::string, std::int64_t>> voices;  // per service, active after the seed
  std::int64_t tags = 0;
  std::int64_t deactivated = 0;  // voices no longer built (their synthesiser voice is gone)
};

// Upserts the tag vocabulary and `seeds` (by service and voice_id; ids never change), and
// deactivates voices of the seeded services that `seeds` no longer contains. The services must
// exist already. Throws std::invalid_argument when `seeds` is empty.
VoiceSeedReport seed_voices(db::Db& db, db::Tx& tx, const std::vector<VoiceSeed>& seeds);


}  // namespace mediagen::voices
