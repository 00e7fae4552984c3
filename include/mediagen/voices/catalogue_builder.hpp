#pragma once
// Builds the four voice services' catalogues from the synthesiser's voices and variants, as a
// pure function: the same input always gives the same voices with the same ids, so seeding
// again (or on another machine with the same espeak-ng data) keeps every id.
//
//   provider_a  every language voice, each with six everyday variants (three female, three
//               male, rotated per language) and one robotic or character variant; ids are
//               20 alphanumerics.
//   provider_b  the major languages (English, German, French, Spanish, Italian, Portuguese,
//               Russian, Polish, Dutch, Swedish, Turkish, Ukrainian, Japanese, Korean, Hindi)
//               with every everyday variant; ids are lowercase names like "en-us-alicia".
//   provider_c  eleven languages with eight everyday variants each; ids are UUIDs.
//   provider_d  ten languages (several Cyrillic ones) with six everyday variants each; ids are
//               32 lowercase hex characters.
// Every voice also has a global ("LumVoice") uuid derived from its service and voice_id.
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::voices {

// A language voice of the synthesiser, e.g. {"gmw/en-US", "en-us", "English (America)", "male"}.
struct SourceVoice {
  std::string identifier;  // what the engine takes as the voice; unique
  std::string language;    // lower-case tag, e.g. "en-us", "cmn", "pt-br"
  std::string name;        // "English (America)"
  std::string gender;      // "male", "female" or "" (unknown)
};

// A variant changing the timbre, e.g. {"f2", "female2", "female", 0}.
struct SourceVariant {
  std::string key;     // what the engine takes as the variant
  std::string name;    // "female2", "Alicia", "Mr_Serious"
  std::string gender;  // "male", "female" or ""
  int age = 0;         // 0: not given
};

struct VoiceSeed {
  std::string id;  // LumVoice uuid
  std::string service;
  std::string voice_id;
  std::string name;      // "Alicia", "Female 2"
  std::string language;  // primary subtag: "en", "cmn"
  std::string locale;    // the voice's full tag: "en-us"
  std::string accent;    // the voice's name: "English (America)"
  std::string gender;    // "male", "female", "neutral"
  std::vector<std::string> tags;  // codes of voice_tags
  std::string espeak_voice;
  std::string espeak_variant;
  std::string preview_path;  // "voices/<service>/<voice_id>.mp3"
  bool is_public = true;
  std::string upstream_voice_id;  // an upstream provider's own id; empty for the embedded voices
};

std::vector<VoiceSeed> build_catalogue(std::vector<SourceVoice> voices, std::vector<SourceVariant> variants);

// build_catalogue of the espeak-ng voices and variants installed here; throws std::runtime_error
// when espeak-ng cannot list them.
std::vector<VoiceSeed> installed_catalogue();

struct TagSeed {
  std::string_view code;
  std::string_view name_en;
  std::string_view name_ru;
};
// The tag vocabulary, in display order.
const std::vector<TagSeed>& tag_vocabulary();

// The voices an upstream provider lists, as catalogue rows of `service`: the upstream's id is kept
// as upstream_voice_id and is the voice_id too when it fits the service's format (provider_a 20
// alphanumerics, provider_b a lowercase name, provider_c a UUID, provider_d 32 lowercase hex);
// otherwise the voice_id is derived from it, stably. The espeak voice is the language (the
// embedded engine's stand-in for previews and voice search), English when unknown.
struct ListedVoice {
  std::string id, name, language, gender;
};
std::vector<VoiceSeed> upstream_voice_seeds(std::string_view service, const std::vector<ListedVoice>& listed);
// The voice_id of an upstream's voice id in `service`'s format.
std::string spec_voice_id(std::string_view service, std::string_view upstream_id);

// The id formats (exposed for tests).
std::string alphanumeric_id(std::string_view seed, std::size_t length);  // [A-Za-z0-9]{length}
std::string uuid_from(std::string_view seed);                            // 8-4-4-4-12 lowercase
std::string hex32_from(std::string_view seed);                           // 32 lowercase hex
std::string lumvoice_id(std::string_view service, std::string_view voice_id);
std::string slug(std::string_view text);        // "Mr_Serious" -> "mr-serious"
std::string display_name(std::string_view raw);  // "female2" -> "Female 2", "anxiousAndy" -> "Anxious Andy"
std::string primary_language(std::string_view tag);  // "en-us" -> "en"

}  // namespace mediagen::voices
